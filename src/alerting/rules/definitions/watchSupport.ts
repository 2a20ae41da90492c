// Shared pieces of the watch alerts (rule group ledger-fleet-watch): one instance per watched
// entry, labelled name, network and its address (validator|miner|account), and the rule that a
// value not known (never read, or the last read failed) decides nothing: such an entry's
// instances are held as they are, neither fired nor resolved.
import type { WatchKind, WatchSnapshot, WatchedView } from '../../../watch/types.js';
import type { AlertSample, Labels } from '../types.js';

export const WATCH_GROUP = 'ledger-fleet-watch';
export const WATCH_KINDS: readonly WatchKind[] = ['validator', 'miner', 'account'];

/** A number: the condition holds, with this value; false: it does not; undefined: not known. */
export type Verdict = number | false | undefined;

// A view is kept while its entry's reads do not change (watch/views.ts), so are its labels: the
// engine then knows the instance without hashing them again.
const labelsOf = new WeakMap<WatchedView, Record<string, string>>();

export function watchLabels(v: WatchedView): Record<string, string> {
  let l = labelsOf.get(v);
  if (!l) labelsOf.set(v, (l = { name: v.name, network: v.network, [v.kind]: v.address }));
  return l;
}

export function perEntry<V extends WatchedView>(
  list: readonly V[] | undefined,
  verdict: (v: V) => Verdict,
): AlertSample[] {
  const out: AlertSample[] = [];
  for (const v of list ?? []) {
    const r = verdict(v);
    if (r === false) continue;
    out.push(r === undefined ? { labels: watchLabels(v), value: 0, hold: true } : { labels: watchLabels(v), value: r });
  }
  return out;
}

/** Every entry of the snapshot, whatever its kind. */
export function allEntries(watch: WatchSnapshot | undefined): WatchedView[] {
  return watch ? [...watch.validators, ...watch.miners, ...watch.accounts] : [];
}

/** One series per entry, whichever exporter (shard, HA twin) exported it. */
export function byEntry(kind: WatchKind | 'any', expr: string): string {
  const by = kind === 'any' ? 'name, network, validator, miner, account' : `name, network, ${kind}`;
  if (!expr.includes('\n')) return `max by (${by}) (${expr})`;
  return `max by (${by}) (\n${expr
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n')}\n)`;
}

const entryKeys = new WeakMap<WatchSnapshot, Set<string>>();
const entryKey = (kind: string, name: string, network: string, address: string) =>
  `${kind}\u0000${name}\u0000${network}\u0000${address}`;

/** An instance of a watch alert whose entry is no longer configured (a reload removed it). */
export function watchEntryGone(labels: Labels, watch: WatchSnapshot | undefined): boolean {
  const kind = WATCH_KINDS.find((k) => labels[k] !== undefined);
  if (!kind) return false;
  if (!watch || labels.name === undefined || labels.network === undefined) return true;
  let keys = entryKeys.get(watch);
  if (!keys)
    entryKeys.set(
      watch,
      (keys = new Set(allEntries(watch).map((e) => entryKey(e.kind, e.name, e.network, e.address)))),
    );
  return !keys.has(entryKey(kind, labels.name, labels.network, labels[kind]!));
}
