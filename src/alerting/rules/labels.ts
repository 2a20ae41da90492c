// Label sets as identities: the fingerprint names an alert instance, a group, a dedup key.
import { createHash } from 'node:crypto';
import type { Labels } from './types.js';

/** Canonical text of a label set (sorted names), unique per set. */
export function labelsKey(labels: Labels): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${JSON.stringify(labels[k])}`)
    .join(',');
}

/** Short stable hash of a label set: the same on every restart and every replica. */
export function fingerprint(labels: Labels): string {
  return createHash('sha256').update(labelsKey(labels)).digest('hex').slice(0, 32);
}

/** The labels named by `names` (absent ones left out), for group keys. */
export function pickLabels(labels: Labels, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) if (labels[n] !== undefined) out[n] = labels[n]!;
  return out;
}
