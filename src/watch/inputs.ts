// What one entry's view is built from, and how reading it goes (shared by every kind).
import type { EntityReadView, FailureReason, NetworkView } from '../domain.js';
import { toTokens } from '../probes/parse.js';
import type { WatchEntry, WatchReadView } from './types.js';

/** What an entry's view is built from. */
export interface EntryInputs {
  entry: WatchEntry;
  network: NetworkView | undefined;
  /** The network's current epoch (its highest node up's /health). */
  epoch: number | undefined;
  decimals: number;
  epochBlocks: number;
  /** The entry's own reads and, for validators, its network's set and newest rewards. */
  own: Record<string, EntityReadView | undefined>;
  networkReads: Record<string, EntityReadView | undefined>;
  /** The kind's item reads (itemReads), each in the order of its itemKeys. */
  items?: Record<string, ReadonlyArray<EntityReadView | undefined>>;
  /** What the kind's runtime keeps for the entry (WatchKindRuntime.local). */
  local?: unknown;
  intervalMs: number;
}

/**
 * How reading the entry goes: a complete read needs all its reads; failures add up over them;
 * the node named is the one that answered its own read.
 */
export function readView(inputs: EntryInputs): WatchReadView {
  const all = [
    ...Object.values(inputs.own),
    ...Object.values(inputs.networkReads),
    ...Object.values(inputs.items ?? {}).flat(),
  ];
  const failures: Record<string, number> = {};
  let consecutiveFailures = 0;
  let last: number | undefined = Infinity;
  for (const r of all) {
    consecutiveFailures = Math.max(consecutiveFailures, r?.consecutiveFailures ?? 0);
    if (r)
      for (const [reason, n] of Object.entries(r.failures) as Array<[FailureReason, number]>)
        if (n > 0) failures[reason] = (failures[reason] ?? 0) + n;
    last = r?.lastSuccessAt === undefined || last === undefined ? undefined : Math.min(last, r.lastSuccessAt);
  }
  const servedBy = Object.values(inputs.own).find((r) => r?.servedBy)?.servedBy;
  return {
    ...(last !== undefined && Number.isFinite(last) && { lastSuccessSeconds: last / 1000 }),
    consecutiveFailures,
    failures,
    ...(servedBy !== undefined && { servedBy }),
    intervalMs: inputs.intervalMs,
  };
}

export const tokens = (raw: bigint, decimals: number): number => toTokens(raw, decimals);
