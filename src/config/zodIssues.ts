// zod issues -> path problems with messages written for people editing YAML.

import type * as z from 'zod';
import type { PathProblem, PathSegment } from './problems.js';

type Issue = z.core.$ZodIssue;

/**
 * `input` is the parsed value: an issue at a key the input's object lacks says the key is missing,
 * whatever the schema there (a union, a format, an enum, a custom message for a present value).
 */
export function issuesToPathProblems(
  issues: readonly Issue[],
  schema: z.ZodType,
  prefix: PathSegment[] = [],
  input?: unknown,
): PathProblem[] {
  return issues.flatMap((issue) => issueToPathProblems(issue, schema, prefix, input));
}

/** True when `path` names a key its parent object in `input` does not have (or has as undefined). */
function isMissingKey(input: unknown, path: readonly PathSegment[]): boolean {
  if (path.length === 0 || typeof path[path.length - 1] !== 'string') return false;
  let parent: unknown = input;
  for (const seg of path.slice(0, -1)) {
    if (parent === null || typeof parent !== 'object') return false;
    parent = (parent as Record<string | number, unknown>)[seg];
  }
  if (parent === null || typeof parent !== 'object' || Array.isArray(parent)) return false;
  return (parent as Record<string, unknown>)[path[path.length - 1] as string] === undefined;
}

function issueToPathProblems(issue: Issue, schema: z.ZodType, prefix: PathSegment[], input: unknown): PathProblem[] {
  const path: PathSegment[] = [...prefix, ...issue.path.map((s) => (typeof s === 'number' ? s : String(s)))];
  // A missing key is reported as missing, not as whatever its schema checks first (a union's
  // "Invalid input", a format's "expected an e-mail address"); a message written to say that the
  // key is required (a refinement's, or the schema's own "at least one node is required") stays.
  if (
    issue.code !== 'unrecognized_keys' &&
    issue.code !== 'invalid_key' &&
    issue.code !== 'custom' &&
    !/required|missing/i.test(issue.message) &&
    isMissingKey(input, path)
  )
    return [{ path, message: `missing required key "${String(path[path.length - 1])}"` }];
  switch (issue.code) {
    case 'unrecognized_keys': {
      const allowed = allowedKeysAt(schema, path);
      return issue.keys.map((k) => ({
        path: [...path, k],
        at: 'key' as const,
        message: `unknown key "${k}"${suggestion(k, allowed)}`,
      }));
    }
    case 'invalid_key':
      return [{ path, at: 'key', message: issue.issues[0]?.message ?? 'invalid key' }];
    case 'invalid_union': {
      // When exactly one alternative got past its type check, its issues say more than "no match".
      const deeper = issue.errors.filter((branch) =>
        branch.some((i) => i.path.length > 0 || i.code !== 'invalid_type'),
      );
      if (deeper.length === 1 && deeper[0]) return issuesToPathProblems(deeper[0], schema, path, input);
      return [{ path, message: issue.message }];
    }
    case 'invalid_type':
      if (issue.message.startsWith('Invalid input') && /received undefined$/.test(issue.message)) {
        return [{ path, message: `missing required key "${String(path[path.length - 1])}"` }];
      }
      return [{ path, message: plain(issue.message) }];
    default:
      return [{ path, message: plain(issue.message) }];
  }
}

/** zod's default "Invalid input: expected string, received number" without the preamble. */
function plain(message: string): string {
  return message.replace(/^Invalid input: /, '');
}

// ---- "did you mean" for unknown keys ----

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
}
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

function unwrap(s: z.ZodType): z.ZodType[] {
  const def = defOf(s);
  if (def.innerType) return unwrap(def.innerType);
  if (def.type === 'union' && def.options) return def.options.flatMap(unwrap);
  return [s];
}

/** Keys an object schema accepts at `path` (empty when unknown). */
function allowedKeysAt(schema: z.ZodType, path: readonly PathSegment[]): string[] {
  let current = unwrap(schema);
  for (const seg of path) {
    current = current.flatMap((s) => {
      const def = defOf(s);
      if (def.type === 'object' && def.shape && typeof seg === 'string' && def.shape[seg])
        return unwrap(def.shape[seg]);
      if (def.type === 'array' && def.element && typeof seg === 'number') return unwrap(def.element);
      if (def.type === 'record' && def.valueType && typeof seg === 'string') return unwrap(def.valueType);
      return [];
    });
  }
  return current.flatMap((s) => {
    const def = defOf(s);
    return def.type === 'object' && def.shape ? Object.keys(def.shape) : [];
  });
}

function suggestion(key: string, allowed: string[]): string {
  const best = allowed
    .map((a) => ({
      a,
      d: a.toLowerCase() === key.toLowerCase() ? 0 : editDistance(a.toLowerCase(), key.toLowerCase()),
    }))
    .filter((x) => x.d <= Math.max(1, Math.floor(x.a.length / 4)))
    .sort((x, y) => x.d - y.d)[0];
  const known = allowed.length ? `; known keys: ${allowed.join(', ')}` : '';
  return best ? ` (did you mean "${best.a}"?)` : known;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(
        (prev[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    prev = row;
  }
  return prev[b.length] as number;
}
