// One status per node that tells the truth: up / degraded / down / unknown, with the reason.
// Pure: the snapshot's node view, the node's probe timing and the last failures in; a NodeStatus out.
import { findDefinition } from '../alerting/definitions/index.js';
import type { ProbeName } from '../domain.js';
import { livenessProbes } from '../state/fleetState.js';
import type { NodeView } from '../state/snapshot.js';
import type { NodeStatus, ProbeFailure, ProbeStatus, Reason, StatusKind } from './types.js';
import { failureToReason, probeMask, reasonText } from './words.js';

/**
 * A node whose height has not moved for this long is stalled. Blocks come every ~3 s, so 30 s is
 * ten missed blocks: shown well before /health turns "degraded" (60 s) and the alert fires (2 m).
 */
export const STALLED_AFTER_SECS = 30;
/** More blocks behind the highest node of its network than this is "behind": LedgerNodeBehindFleet's default threshold. */
export const BEHIND_AFTER_BLOCKS = findDefinition('LedgerNodeBehindFleet')?.defaults.threshold ?? 20;

export interface ProbeTiming {
  lastRunAt?: number;
  /** Not run again before this time (backoff or Retry-After). */
  notBefore?: number;
  lastSuccessAt?: number;
}

export interface DeriveInput {
  view: NodeView;
  intervalMs: number;
  timeoutMs: number;
  timing: ReadonlyMap<ProbeName, ProbeTiming>;
  failures: ReadonlyMap<ProbeName, ProbeFailure>;
  /** Height as last seen and since when it has not changed (used when /health gives no block age). */
  heightSince?: { height: number; since: number };
}

/** The scheduler ticks every interval; a probe held back runs at the first tick after its pause. */
export function nextCheckAt(t: ProbeTiming, intervalMs: number): number | undefined {
  if (t.lastRunAt === undefined) return undefined;
  const next = t.lastRunAt + intervalMs;
  if (t.notBefore === undefined || t.notBefore <= next) return next;
  return t.lastRunAt + Math.ceil((t.notBefore - t.lastRunAt) / intervalMs) * intervalMs;
}

function probeStatus(p: NodeView['probes'][number], input: DeriveInput, now: number): ProbeStatus {
  const t = input.timing.get(p.probe) ?? {};
  const base = {
    probe: p.probe,
    lastRunAt: t.lastRunAt,
    durationMs: p.durationSeconds === undefined ? undefined : Math.round(p.durationSeconds * 1000),
    lastSuccessAt: t.lastSuccessAt,
    consecutiveFailures: p.consecutiveFailures,
    backingOff: t.notBefore !== undefined && t.notBefore > now,
  };
  if (!p.supported) return { ...base, outcome: 'unsupported', text: 'not offered by this node build' };
  const nextAt = nextCheckAt(t, input.intervalMs);
  if (p.success === undefined) return { ...base, outcome: 'pending', text: 'not run yet', nextCheckAt: nextAt };
  if (p.success) return { ...base, outcome: 'ok', text: 'ok', nextCheckAt: nextAt };
  const f = input.failures.get(p.probe);
  const reason: Reason = f ? failureToReason(f, input.timeoutMs) : { code: 'none' };
  return { ...base, outcome: 'failing', reason, text: reasonText(reason) || 'failing', nextCheckAt: nextAt };
}

function blockAge(input: DeriveInput, now: number): number | undefined {
  const fromHealth = input.view.health?.lastBlockAgeSecs;
  if (fromHealth !== undefined) return fromHealth;
  const h = input.heightSince;
  if (!h || input.view.height === undefined || h.height !== input.view.height) return undefined;
  return Math.floor((now - h.since) / 1000);
}

/**
 * A failure from the previous round does not count while this round's run is still to come (the
 * node answered its liveness probe a moment ago and the others run right after): otherwise every
 * recovery would show a second of "degraded". A probe held back by backoff keeps its failure.
 */
function failingNow(p: ProbeStatus, roundStart: number | undefined, intervalMs: number): boolean {
  if (p.outcome !== 'failing') return false;
  if (p.backingOff || roundStart === undefined || p.lastRunAt === undefined) return true;
  return p.lastRunAt >= roundStart - intervalMs / 2;
}

function degradedReasons(view: NodeView, probes: ProbeStatus[], age: number | undefined, roundStart: number | undefined, intervalMs: number): Reason[] {
  const out: Reason[] = [];
  const hs = view.health?.status;
  if (hs !== undefined && hs !== 'ok') out.push({ code: 'unhealthy', detail: hs.slice(0, 40) });
  if (age !== undefined && age >= STALLED_AFTER_SECS) out.push({ code: 'stalled', n: Math.min(age, 65_535) });
  if (view.lagBlocks !== undefined && view.lagBlocks > BEHIND_AFTER_BLOCKS) out.push({ code: 'behind', n: Math.min(view.lagBlocks, 65_535) });
  const failing = probes.filter((p) => failingNow(p, roundStart, intervalMs));
  if (failing.length > 0) out.push({ code: 'probes_failing', n: probeMask(failing.map((p) => p.probe)), detail: failing[0]!.text });
  return out;
}

/**
 * Whether the node's latest poll round is complete: the probes due on schedule ran back to back
 * (one after another, or side by side), with no gap between one's end and the next one's start.
 * While a round is in progress, the probes still to run show the previous round's answers.
 */
function roundSettled(probes: ProbeStatus[], intervalMs: number): boolean {
  const runs = probes
    .filter((p) => p.outcome !== 'unsupported' && !p.backingOff && p.lastRunAt !== undefined)
    .map((p) => ({ start: p.lastRunAt!, end: p.lastRunAt! + (p.durationMs ?? 0) }))
    .sort((a, b) => a.start - b.start);
  const tolerance = Math.max(250, intervalMs / 4);
  let end = runs[0]?.end ?? 0;
  for (const r of runs.slice(1)) {
    if (r.start - end > tolerance) return false;
    end = Math.max(end, r.end);
  }
  return true;
}

export function deriveNodeStatus(input: DeriveInput, now: number): Omit<NodeStatus, 'since'> & { settled: boolean } {
  const { view } = input;
  const probes = view.probes.map((p) => probeStatus(p, input, now));
  const live = livenessProbes(view.probes.map((p) => p.probe));
  const liveStatus = probes.filter((p) => live.includes(p.probe));
  const age = blockAge(input, now);
  let status: StatusKind;
  let reasons: Reason[];
  if (liveStatus.every((p) => p.outcome === 'pending' || p.outcome === 'unsupported')) {
    status = 'unknown';
    reasons = [{ code: 'not_polled' }];
  } else if (!view.up) {
    status = 'down';
    const failing = liveStatus.find((p) => p.outcome === 'failing');
    reasons = [failing?.reason ?? { code: 'none' }];
  } else {
    const roundStart = Math.max(...liveStatus.map((p) => p.lastRunAt ?? 0));
    reasons = degradedReasons(view, probes, age, roundStart || undefined, input.intervalMs);
    status = reasons.length > 0 ? 'degraded' : 'up';
  }
  const nexts = liveStatus.map((p) => p.nextCheckAt).filter((x): x is number => x !== undefined);
  const lasts = probes.map((p) => p.lastRunAt).filter((x): x is number => x !== undefined);
  return {
    name: view.name,
    network: view.network,
    status,
    reasons,
    text: reasons.map(reasonText).filter(Boolean).join('; ') || (status === 'down' ? 'no valid answer' : ''),
    settled: roundSettled(probes, input.intervalMs),
    lastCheckAt: lasts.length ? Math.max(...lasts) : undefined,
    nextCheckAt: nexts.length ? Math.min(...nexts) : undefined,
    backingOff: liveStatus.length > 0 && liveStatus.every((p) => p.backingOff),
    height: view.height,
    lagBlocks: view.lagBlocks,
    blockAgeSecs: age,
    version: view.health?.version,
    peers: view.health?.peerCount,
    labels: view.labels,
    namespace: view.namespace,
    probes,
  };
}
