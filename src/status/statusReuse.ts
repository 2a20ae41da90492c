// Writing a node's derived status over its last one when what it shows kept its kind: a poll of a
// node whose outcome did not change then leaves no new objects to keep until the next poll (they
// were 1.0-1.4 KB promoted per node-poll). Only a status the board has not handed out is written
// over (board.ts); reasons and words already shown are kept as they are when they are the same.
import type { NodeState } from '../state/fleetState.js';
import type { NodeStatus, ProbeStatus, Reason } from './types.js';
import { joinedText } from './words.js';

/** What derive found of a node's probes, as written over a status. */
export interface SeenProbes {
  probes: readonly ProbeStatus[];
  lastCheckAt?: number;
  nextCheckAt?: number;
  liveBackingOff: boolean;
}

export function sameReason(a: Reason | undefined, b: Reason | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.code === b.code && a.n === b.n && a.detail === b.detail);
}

export function sameReasons(a: readonly Reason[], b: readonly Reason[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!sameReason(a[i], b[i])) return false;
  return true;
}

/** A probe's status as a new object, every field in the order a status is made with. */
export function probeCopy(p: ProbeStatus): ProbeStatus {
  return {
    probe: p.probe,
    outcome: p.outcome,
    reason: p.reason,
    text: p.text,
    lastRunAt: p.lastRunAt,
    durationMs: p.durationMs,
    lastSuccessAt: p.lastSuccessAt,
    consecutiveFailures: p.consecutiveFailures,
    backingOff: p.backingOff,
    nextCheckAt: p.nextCheckAt,
  };
}

/** Whether `to` lists the same probes, in the same order, as `from`. */
export function sameProbes(to: readonly ProbeStatus[], from: readonly ProbeStatus[]): boolean {
  if (to.length !== from.length) return false;
  for (let i = 0; i < to.length; i++) if (to[i]!.probe !== from[i]!.probe) return false;
  return true;
}

/** Writes `from` over `to` (same probes), keeping `to`'s reason and words where they are the same. */
export function probesOver(to: ProbeStatus[], from: readonly ProbeStatus[]): void {
  for (let i = 0; i < to.length; i++) {
    const p = to[i]!;
    const q = from[i]!;
    p.outcome = q.outcome;
    if (!sameReason(p.reason, q.reason)) p.reason = q.reason;
    if (p.text !== q.text) p.text = q.text;
    p.lastRunAt = q.lastRunAt;
    p.durationMs = q.durationMs;
    p.lastSuccessAt = q.lastSuccessAt;
    p.consecutiveFailures = q.consecutiveFailures;
    p.backingOff = q.backingOff;
    p.nextCheckAt = q.nextCheckAt;
  }
}

/** Every field deriveNodeStatus sets, written over a status of the same kind and probes (`since` is the board's). */
export function writeOver(
  s: NodeStatus,
  input: { node: NodeState; height?: number; lagBlocks?: number },
  seen: SeenProbes,
  reasons: Reason[],
  age: number | undefined,
): void {
  const { node } = input;
  const h = node.health;
  s.name = node.target.name;
  s.network = node.target.network;
  if (!sameReasons(s.reasons, reasons)) {
    s.reasons = reasons;
    s.text = joinedText(reasons, s.status);
  }
  s.lastCheckAt = seen.lastCheckAt;
  s.nextCheckAt = seen.nextCheckAt;
  s.backingOff = seen.liveBackingOff;
  s.height = input.height;
  s.lagBlocks = input.lagBlocks;
  s.blockAgeSecs = age;
  s.version = h?.version;
  s.peers = h?.peerCount;
  s.labels = node.target.labels;
  s.namespace = node.namespace;
  probesOver(s.probes, seen.probes);
}
