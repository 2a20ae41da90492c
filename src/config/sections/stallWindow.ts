// The height-stall alert looks for a height change within its window. A node polled less often
// than twice per window shows no change between polls and would page while advancing, in the
// built-in engine and in the generated PromQL rule alike; so the pairing is refused here, at the
// interval that causes it, naming the threshold that would have to grow.
import { formatDuration, parseDuration } from '../duration.js';
import { HEIGHT_STALLED, stallWindowMs } from '../../alerting/rules/definitions/nodes.js';
import type { PathProblem, PathSegment } from '../problems.js';
import { NODE_DEFAULTS } from './nodes.js';
import { firstSet, isObj, type Obj } from './fields.js';
import { defineSection } from './section.js';

const THRESHOLD_KEY = `alerting.rules.${HEIGHT_STALLED}.threshold`;

/**
 * The stall window in force (ms), or undefined when the alert is disabled, its threshold is not a
 * number, or there is no `alerting:` section: without one nothing here evaluates the alert, and the
 * rules Prometheus loads are the operator's (`alert-rules` writes them with the threshold set).
 */
function windowInForce(doc: Obj): { ms: number; overridden: boolean } | undefined {
  if (!isObj(doc.alerting)) return undefined;
  const rules = isObj(doc.alerting) && isObj(doc.alerting.rules) ? doc.alerting.rules : {};
  const rule = isObj(rules[HEIGHT_STALLED]) ? rules[HEIGHT_STALLED] : {};
  if (rule.enabled === false) return undefined;
  if (rule.threshold === undefined) return { ms: stallWindowMs(undefined), overridden: false };
  return typeof rule.threshold === 'number' && Number.isFinite(rule.threshold)
    ? { ms: stallWindowMs(rule.threshold), overridden: true }
    : undefined;
}

function message(nodes: string[], intervalMs: number, window: { ms: number; overridden: boolean }): string {
  const who = nodes.length === 1 ? `node "${nodes[0]}" is` : `nodes ${nodes.map((n) => `"${n}"`).join(', ')} are`;
  const threshold = window.overridden
    ? `${THRESHOLD_KEY}: ${window.ms / 1000}`
    : `its default threshold of ${window.ms / 1000} s`;
  return (
    `${who} polled every ${formatDuration(intervalMs)}, but ${HEIGHT_STALLED} looks for a height change within ` +
    `${formatDuration(window.ms)} (${threshold}), so it would fire between two polls of an advancing node: the ` +
    `window must ` +
    `span at least two polls. Poll every ${formatDuration(window.ms / 2)} or faster, or set ${THRESHOLD_KEY} to ` +
    `${(2 * intervalMs) / 1000} or more`
  );
}

/** One problem per interval setting (a `defaults.interval` shared by many nodes is reported once). */
export function stallWindowProblems(doc: Obj): PathProblem[] {
  const window = windowInForce(doc);
  if (!window) return [];
  const defaults = isObj(doc.defaults) ? doc.defaults : {};
  const byPath = new Map<string, { path: PathSegment[]; ms: number; nodes: string[] }>();
  (Array.isArray(doc.nodes) ? doc.nodes : []).forEach((node: unknown, i) => {
    if (!isObj(node)) return;
    const set = firstSet([
      [node, 'interval', ['nodes', i, 'interval']],
      [defaults, 'interval', ['defaults', 'interval']],
    ]);
    const ms = set ? set.ms : parseDuration(NODE_DEFAULTS.interval);
    if (ms === undefined || 2 * ms <= window.ms) return;
    const path = set ? set.path : ['nodes', i];
    const key = path.join('.');
    const entry = byPath.get(key) ?? { path, ms, nodes: [] };
    entry.nodes.push(typeof node.name === 'string' ? node.name : `nodes[${i}]`);
    byPath.set(key, entry);
  });
  return [...byPath.values()].map((e) => ({ path: e.path, message: message(e.nodes, e.ms, window) }));
}

/** Owns no keys: a check across the nodes and alerting sections. */
export const stallWindowSection = defineSection({
  shape: {},
  check: stallWindowProblems,
  resolve: () => ({}),
});
