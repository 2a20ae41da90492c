// One reload, described once: which nodes came, went or changed and which sections differ.
// The daemon computes it once and hands the same diff to every component.
import type { ExporterConfig } from './exporterConfig.js';

export interface ConfigDiff {
  prev: ExporterConfig;
  next: ExporterConfig;
  nodes: { added: string[]; removed: string[]; changed: string[]; unchanged: string[] };
  /** Top-level sections whose value differs (nodes included). */
  sections: string[];
  /** Of those, the ones read only at start-up: they take effect at the next restart. */
  restartOnly: Array<(typeof RESTART_ONLY_SECTIONS)[number]>;
}

/**
 * Read once at start-up: the server socket, the evidence store, the platform checker, and
 * `polling` (concurrency, body cap and the per-node budget apply to every node alike, so a reload
 * never gives some nodes new limits and others old ones).
 */
export const RESTART_ONLY_SECTIONS = ['listen', 'evidence', 'polling', 'agentPlatform'] as const;

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function diffConfig(
  prev: ExporterConfig,
  next: ExporterConfig,
  opts: { listenOverridden?: boolean } = {},
): ConfigDiff {
  const before = new Map(prev.nodes.map((n) => [n.name, n]));
  const after = new Set(next.nodes.map((n) => n.name));
  const nodes: ConfigDiff['nodes'] = { added: [], removed: [], changed: [], unchanged: [] };
  for (const n of next.nodes) {
    const old = before.get(n.name);
    nodes[!old ? 'added' : same(old, n) ? 'unchanged' : 'changed'].push(n.name);
  }
  nodes.removed = prev.nodes.filter((n) => !after.has(n.name)).map((n) => n.name);
  const keys = [...new Set([...Object.keys(prev), ...Object.keys(next)])] as Array<keyof ExporterConfig>;
  const sections = keys.filter((k) => !same(prev[k], next[k]));
  // A listen overridden by --listen is never the config's.
  const restartOnly = RESTART_ONLY_SECTIONS.filter(
    (k) => sections.includes(k) && !(k === 'listen' && opts.listenOverridden),
  );
  return { prev, next, nodes, sections, restartOnly };
}
