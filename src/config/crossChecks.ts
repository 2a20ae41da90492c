// Rules that span several fields (unique names, timeout < interval with inheritance).
// They read the expanded YAML data tolerantly, so they run even when the schema found
// problems elsewhere and every problem is reported in one go.

import { durationReason, parseDuration } from './duration.js';
import { formatPath, type PathSegment } from './problems.js';
import { headerValueReason } from './rules.js';

/** A problem known by key path only; parse.ts attaches the file position. */
export interface PathProblem {
  path: PathSegment[];
  /** Point at the key rather than at its value. */
  at?: 'key' | 'value';
  message: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function durationMs(v: unknown): number | undefined {
  return typeof v === 'string' && durationReason(v) === undefined ? parseDuration(v) : undefined;
}

interface Effective {
  ms: number | undefined;
  /** Where the value was configured; undefined for a built-in default. */
  path?: PathSegment[];
}

function effective(candidates: Array<[Obj, string, PathSegment[]]>, builtinMs: number): Effective {
  for (const [obj, key, path] of candidates) {
    if (obj[key] !== undefined) return { ms: durationMs(obj[key]), path };
  }
  return { ms: builtinMs };
}

const describe = (e: Effective, builtin: string) => (e.path ? formatPath(e.path) : `the built-in default ${builtin}`);

/** timeout < interval: one probe never overlaps its own next run. */
function timeoutProblem(interval: Effective, timeout: Effective, builtins: { interval: string; timeout: string }): PathProblem | undefined {
  if (interval.ms === undefined || timeout.ms === undefined || timeout.ms < interval.ms) return undefined;
  // Blame the most specific setting: a node's own value before an inherited one.
  const blame = [timeout.path, interval.path].filter((p): p is PathSegment[] => p !== undefined).sort((a, b) => b.length - a.length)[0];
  if (!blame) return undefined;
  return {
    path: blame,
    message: `timeout must be less than interval, so a probe never overlaps its next run (timeout from ${describe(timeout, builtins.timeout)}, interval from ${describe(interval, builtins.interval)})`,
  };
}

function duplicateProbes(probes: unknown, path: PathSegment[]): PathProblem[] {
  if (!Array.isArray(probes)) return [];
  return probes.flatMap((p, i) =>
    typeof p === 'string' && probes.indexOf(p) !== i ? [{ path: [...path, i], message: `probe "${p}" is listed twice` }] : [],
  );
}

/** Header names are case-insensitive on the wire; a value with a line break could smuggle headers. */
function headerProblems(headers: unknown, path: PathSegment[]): PathProblem[] {
  if (!isObj(headers)) return [];
  const out: PathProblem[] = [];
  const seen = new Set<string>();
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (seen.has(lower)) out.push({ path: [...path, name], at: 'key', message: `header "${name}" is set twice (names are case-insensitive)` });
    seen.add(lower);
    const reason = typeof value === 'string' ? headerValueReason(value) : undefined;
    if (reason) out.push({ path: [...path, name], message: reason });
  }
  return out;
}

export function crossFieldProblems(data: unknown): PathProblem[] {
  if (!isObj(data)) return [];
  const out: PathProblem[] = [];
  const defaults = isObj(data.defaults) ? data.defaults : {};
  const nodes = Array.isArray(data.nodes) ? data.nodes : [];

  out.push(...duplicateProbes(defaults.probes, ['defaults', 'probes']));
  out.push(...headerProblems(defaults.headers, ['defaults', 'headers']));

  const firstByName = new Map<string, number>();
  nodes.forEach((node, i) => {
    if (!isObj(node)) return;
    out.push(...duplicateProbes(node.probes, ['nodes', i, 'probes']));
    out.push(...headerProblems(node.headers, ['nodes', i, 'headers']));
    if (typeof node.name === 'string') {
      // Case-insensitive: names become file names and label values that people compare by eye.
      const key = node.name.toLowerCase();
      const first = firstByName.get(key);
      if (first === undefined) firstByName.set(key, i);
      else out.push({ path: ['nodes', i, 'name'], message: `duplicate node name "${node.name}" (already used by nodes[${first}])` });
    }
    const interval = effective([[node, 'interval', ['nodes', i, 'interval']], [defaults, 'interval', ['defaults', 'interval']]], 15_000);
    const timeout = effective([[node, 'timeout', ['nodes', i, 'timeout']], [defaults, 'timeout', ['defaults', 'timeout']]], 5_000);
    const p = timeoutProblem(interval, timeout, { interval: '15s', timeout: '5s' });
    if (p) out.push(p);
  });

  if (isObj(data.agentPlatform)) {
    const ap = data.agentPlatform;
    const p = timeoutProblem(
      effective([[ap, 'interval', ['agentPlatform', 'interval']]], 300_000),
      effective([[ap, 'timeout', ['agentPlatform', 'timeout']]], 10_000),
      { interval: '5m', timeout: '10s' },
    );
    if (p) out.push(p);
  }
  return out;
}
