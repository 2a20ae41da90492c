// `${VAR}` expansion in string values. It works on parsed scalar nodes, never on raw text,
// so a variable's value is always plain string data and cannot inject YAML structure.

import { isScalar } from 'yaml';
import { formatPath } from './problems.js';
import { positionOf, walkYaml, type LocatedProblem, type ParsedYaml } from './yamlDoc.js';

export type Env = Record<string, string | undefined>;

const VAR_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

export type ExpandResult = { value: string; missing: string[]; malformed: boolean };

/** Expands `${NAME}`; `$${` is a literal `${`; any other `$` is kept. */
export function expandString(text: string, env: Env): ExpandResult {
  let value = '';
  const missing: string[] = [];
  let malformed = false;
  let i = 0;
  while (i < text.length) {
    if (text.startsWith('$${', i)) {
      value += '${';
      i += 3;
    } else if (text.startsWith('${', i)) {
      const end = text.indexOf('}', i + 2);
      const name = end < 0 ? '' : text.slice(i + 2, end);
      if (!VAR_NAME_RE.test(name)) {
        malformed = true;
        value += text.slice(i);
        break;
      }
      const v = env[name];
      if (v === undefined) missing.push(name);
      else value += v;
      i = end + 1;
    } else {
      value += text[i];
      i += 1;
    }
  }
  return { value, missing, malformed };
}

/**
 * Replaces variables in every string value of the document, in place. Problems name the
 * variable, never its value (it may be a secret), nor the rest of the string.
 * Returns the problems and the key paths that could not be expanded.
 */
export function expandDocument(
  parsed: ParsedYaml,
  env: Env,
  unset?: UnsetPlaceholders,
): { problems: LocatedProblem[]; failedPaths: Set<string> } {
  const problems: LocatedProblem[] = [];
  const failedPaths = new Set<string>();
  walkYaml(parsed.doc.contents, (node, path) => {
    if (!isScalar(node) || typeof node.value !== 'string' || !node.value.includes('$')) return;
    const where = { ...positionOf(parsed.lineCounter, node.range?.[0] ?? 0), path: formatPath(path) };
    const r = unset ? expandUnset(node.value, env, unset, where.path) : expandString(node.value, env);
    if (r.malformed) {
      problems.push({
        ...where,
        message:
          'malformed variable reference: use ${NAME} with NAME made of letters, digits and "_", or $${ for a ' +
          'literal "${"',
      });
    }
    for (const name of new Set(r.missing)) {
      problems.push({ ...where, message: `environment variable "${name}" is not set` });
    }
    if (r.malformed || r.missing.length > 0) failedPaths.add(where.path);
    else node.value = r.value;
  });
  return { problems, failedPaths };
}

/**
 * For commands that need no secret (alert-rules, check-config --no-secrets): an unset variable
 * becomes a placeholder instead of a problem, and its name is kept to be said. A value that is a
 * variable alone takes the first of PLACEHOLDERS its field accepts (the parser tries the next one
 * where the field refused it: `attempt` by path); within a longer string it is `unset`.
 */
export interface UnsetPlaceholders {
  /** Variable names found unset, by the key path that reads them. */
  readonly found: Map<string, Set<string>>;
  /** Which placeholder to try at a path (index into PLACEHOLDERS; 0 when absent). */
  readonly attempt: Map<string, number>;
}

export const PLACEHOLDERS = ['unset', 'https://unset.invalid/unset', '0:unset', 'unset@unset.invalid', '0'] as const;

function expandUnset(text: string, env: Env, unset: UnsetPlaceholders, path: string): ExpandResult {
  const r = expandString(text, env);
  if (r.malformed || r.missing.length === 0) return r;
  unset.found.set(path, new Set(r.missing));
  const whole = /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(text);
  const filled = whole
    ? (PLACEHOLDERS[unset.attempt.get(path) ?? 0] ?? 'unset')
    : expandString(text, { ...env, ...Object.fromEntries(r.missing.map((n) => [n, 'unset'])) }).value;
  return { value: filled, missing: [], malformed: false };
}
