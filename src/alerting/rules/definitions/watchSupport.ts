// Shared pieces of the watch alerts (rule group ledger-fleet-watch): one instance per watched
// entry, labelled name, network and its address (validator|miner|account), and the rule that a
// value not known (never read, or the last read failed) decides nothing: such an entry's
// instances are held as they are, neither fired nor resolved.
import type { WatchKind, WatchSnapshot, WatchedEntryView } from '../../../watch/types.js';
import type { AlertSample, Labels } from '../types.js';

export const WATCH_GROUP = 'ledger-fleet-watch';

/** A number: the condition holds, with this value; false: it does not; undefined: not known. */
export type Verdict = number | false | undefined;

// Each entry's labels, kept by its name (unique across watch:) while its network and address stay:
// the engine then knows the instance without hashing them again. Entries of a previous config
// leave with the next prune.
const labelsByName = new Map<string, { kind: string; network: string; address: string; labels: Labels }>();

export function watchLabels(v: WatchedEntryView): Labels {
  const kept = labelsByName.get(v.name);
  if (kept && kept.kind === v.kind && kept.network === v.network && kept.address === v.address) return kept.labels;
  const labels = { name: v.name, network: v.network, [v.kind]: v.address };
  if (labelsByName.size > 100_000) labelsByName.clear();
  labelsByName.set(v.name, { kind: v.kind, network: v.network, address: v.address, labels });
  return labels;
}

export function perEntry<V extends WatchedEntryView>(
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
export function allEntries(watch: WatchSnapshot | undefined): WatchedEntryView[] {
  return watch?.entries ?? [];
}

/** One series per entry, whichever exporter (shard, HA twin) exported it; `kind` a list for several kinds. */
export function byEntry(kind: WatchKind | readonly WatchKind[], expr: string): string {
  const by = typeof kind === 'string' ? `name, network, ${kind}` : `name, network, ${kind.join(', ')}`;
  if (!expr.includes('\n')) return `max by (${by}) (${expr})`;
  return `max by (${by}) (\n${expr
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n')}\n)`;
}

const entryKey = (kind: string, name: string, network: string, address: string) =>
  `${kind}\u0000${name}\u0000${network}\u0000${address}`;

/** The last snapshot's entry keys (snapshots are shared while nothing changed: one set per change). */
let keysOf: { watch: WatchSnapshot; keys: Set<string> } | undefined;

/**
 * An instance of a watch alert whose entry is no longer configured (a reload removed it). `kinds`:
 * the address labels of the kinds registered (an instance without one is not a watch entry's).
 */
export function watchEntryGone(labels: Labels, watch: WatchSnapshot | undefined, kinds: readonly WatchKind[]): boolean {
  const kind = kinds.find((k) => labels[k] !== undefined);
  if (!kind) return false;
  if (!watch || labels.name === undefined || labels.network === undefined) return true;
  if (keysOf?.watch !== watch)
    keysOf = { watch, keys: new Set(watch.entries.map((e) => entryKey(e.kind, e.name, e.network, e.address))) };
  return !keysOf.keys.has(entryKey(kind, labels.name, labels.network, labels[kind]!));
}
