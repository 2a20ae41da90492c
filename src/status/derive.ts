// One status per node that tells the truth: up / degraded / down / unknown, with the reason.
// Pure: the node's state, its network lag and its last failures in; a NodeStatus out, with the
// time until which it holds while nothing new arrives. Runs for every changed node of a large
// fleet, so it builds the status directly (no spreads, no intermediate arrays).
import { NODE_ALERTS } from '../alerting/rules/definitions/nodes.js';
import type { ProbeName } from '../domain.js';
import type { NodeState, ProbeState } from '../state/fleetState.js';
import { probeCopy, sameProbes, writeOver } from './statusReuse.js';
import type { NodeStatus, ProbeFailure, ProbeStatus, Reason, StatusKind } from './types.js';
import { failureToReason, joinedText, probeMask, reasonText } from './words.js';

/**
 * A node whose height has not moved for this long is stalled. Blocks come every ~3 s, so 30 s is
 * ten missed blocks: shown well before /health turns "degraded" (60 s) and the alert fires (2 m).
 */
export const STALLED_AFTER_SECS = 30;
/**
 * More blocks behind the highest node of its network than this is "behind": LedgerNodeBehindFleet's default threshold
 * (read from the node alerts: the whole list would load every watch kind's).
 */
export const BEHIND_AFTER_BLOCKS =
  NODE_ALERTS.find((d) => d.name === 'LedgerNodeBehindFleet')?.defaults.threshold ?? 20;

export const isBehind = (lagBlocks: number | undefined): boolean =>
  lagBlocks !== undefined && lagBlocks > BEHIND_AFTER_BLOCKS;

export interface ProbeTiming {
  lastRunAt?: number;
  /** Not run again before this time (backoff or Retry-After). */
  notBefore?: number;
}

export interface DeriveInput {
  node: NodeState;
  /** The probes that decide whether the node is up (livenessProbes of its probes). */
  live: readonly ProbeName[];
  up: boolean;
  height?: number;
  lagBlocks?: number;
  failures: ReadonlyMap<ProbeName, ProbeFailure>;
  /** Height as last seen and since when it has not changed (used when /health gives no block age). */
  heightSince?: { height: number; since: number };
}

export interface Derived {
  /** `since` is set by the board when it takes the status. */
  status: NodeStatus;
  /** Whether the node's latest poll round is complete (see roundSettled). */
  settled: boolean;
  /** Until when the status stays true without a new result or lag: the next backoff end or stall. */
  validUntil: number;
  /** Set when the block age is counted here (no age from /health): then it grows with the clock. */
  ageFrom?: number;
}

/** The scheduler ticks every interval; a probe held back runs at the first tick after its pause. */
export function nextCheckAt(t: ProbeTiming, intervalMs: number): number | undefined {
  return nextCheck(t.lastRunAt, t.notBefore, intervalMs);
}

function nextCheck(
  lastRunAt: number | undefined,
  notBefore: number | undefined,
  intervalMs: number,
): number | undefined {
  if (lastRunAt === undefined) return undefined;
  const next = lastRunAt + intervalMs;
  if (notBefore === undefined || notBefore <= next) return next;
  return lastRunAt + Math.ceil((notBefore - lastRunAt) / intervalMs) * intervalMs;
}

/** Probe statuses are worked out here, then copied to the node's (statusReuse.ts): no new ones per poll. */
const workArea: ProbeStatus[] = [];

/** The i-th probe status of the work area, every field set from the probe's state. */
function probeStatus(i: number, probe: ProbeName, s: ProbeState, input: DeriveInput, now: number): ProbeStatus {
  const run = s.lastRun;
  const p = (workArea[i] ??= probeCopy({ probe, outcome: 'ok', text: '', consecutiveFailures: 0, backingOff: false }));
  p.probe = probe;
  p.outcome = 'ok';
  p.reason = undefined;
  p.text = 'ok';
  p.lastRunAt = run?.at;
  // Same rounding as the snapshot's seconds, so the page shows what the metrics say.
  p.durationMs = run === undefined ? undefined : Math.round((run.durationMs / 1000) * 1000);
  p.lastSuccessAt = s.lastSuccessAt;
  p.consecutiveFailures = s.consecutiveFailures;
  p.backingOff = s.notBefore !== undefined && s.notBefore > now;
  p.nextCheckAt = undefined;
  if (!s.supported) {
    p.outcome = 'unsupported';
    p.text = 'not offered by this node build';
    return p;
  }
  p.nextCheckAt = nextCheck(run?.at, s.notBefore, input.node.target.intervalMs);
  if (run === undefined) {
    p.outcome = 'pending';
    p.text = 'not run yet';
  } else if (!run.ok) {
    const f = input.failures.get(probe);
    const reason: Reason = f ? failureToReason(f, input.node.target.timeoutMs) : { code: 'none' };
    p.outcome = 'failing';
    p.reason = reason;
    p.text = reasonText(reason) || 'failing';
  }
  return p;
}

/** The block age in seconds, and since when it is counted here when /health gives none. */
function blockAge(input: DeriveInput, now: number): { age?: number; from?: number } {
  const fromHealth = input.node.health?.lastBlockAgeSecs;
  if (fromHealth !== undefined) return { age: fromHealth };
  const h = input.heightSince;
  if (!h || input.height === undefined || h.height !== input.height) return {};
  return { age: Math.floor((now - h.since) / 1000), from: h.since };
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

function degradedReasons(
  input: DeriveInput,
  probes: ProbeStatus[],
  age: number | undefined,
  roundStart: number | undefined,
): Reason[] {
  const out: Reason[] = [];
  const hs = input.node.health?.status;
  if (hs !== undefined && hs !== 'ok') out.push({ code: 'unhealthy', detail: hs.slice(0, 40) });
  if (age !== undefined && age >= STALLED_AFTER_SECS) out.push({ code: 'stalled', n: Math.min(age, 65_535) });
  if (isBehind(input.lagBlocks)) out.push({ code: 'behind', n: Math.min(input.lagBlocks!, 65_535) });
  let mask = 0;
  let first: ProbeStatus | undefined;
  for (const p of probes) {
    if (!failingNow(p, roundStart, input.node.target.intervalMs)) continue;
    first ??= p;
    mask |= probeMask([p.probe]);
  }
  if (first) out.push({ code: 'probes_failing', n: mask, detail: first.text });
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
    .sort((a, b) => a.lastRunAt! - b.lastRunAt!);
  const tolerance = Math.max(250, intervalMs / 4);
  let end = runs.length > 0 ? runs[0]!.lastRunAt! + (runs[0]!.durationMs ?? 0) : 0;
  for (let i = 1; i < runs.length; i++) {
    const r = runs[i]!;
    if (r.lastRunAt! - end > tolerance) return false;
    end = Math.max(end, r.lastRunAt! + (r.durationMs ?? 0));
  }
  return true;
}

/** When the status may change with the clock alone: a backoff pause ending, the block age moving on. */
function validUntil(node: NodeState, ageFrom: number | undefined, age: number | undefined, now: number): number {
  let until = Infinity;
  for (const s of node.probes.values())
    if (s.notBefore !== undefined && s.notBefore > now && s.notBefore < until) until = s.notBefore;
  // Counted here: the status turns "stalled" when the age reaches the limit, and from then on
  // its words say the age, so they change every second.
  if (ageFrom !== undefined && age !== undefined)
    until = Math.min(until, ageFrom + 1000 * (age < STALLED_AFTER_SECS ? STALLED_AFTER_SECS : age + 1));
  return until;
}

/**
 * Takes a new lag into a derived status when that gives what deriving again would: a lag on the
 * same side of the "behind" limit (a node behind gets its reason's count and words anew). False
 * when the lag crossed the limit: derive again. Nodes behind are looked at on every move of their
 * network's tip, several times per poll: deriving them again each time cost 30% more derives than
 * the polls themselves at 1,000 nodes / 15 s on the simulated fleet (about 3% of nodes behind).
 */
export function followLag(d: Derived, lagBlocks: number | undefined): boolean {
  const s = d.status;
  if (lagBlocks === s.lagBlocks) return true;
  const behind = isBehind(lagBlocks);
  if (behind !== isBehind(s.lagBlocks)) return false;
  if (behind) {
    const at = s.reasons.findIndex((r) => r.code === 'behind');
    if (at < 0) return false;
    // New objects, not edits: a reason or list already handed out keeps its words.
    const reasons = s.reasons.slice();
    reasons[at] = { ...reasons[at]!, n: Math.min(lagBlocks!, 65_535) };
    s.reasons = reasons;
    s.text = joinedText(reasons, s.status);
  }
  s.lagBlocks = lagBlocks;
  return true;
}

/**
 * followLag for a lag that leaves the words as they are (short of the "behind" limit before and after); false
 * otherwise, and nothing taken.
 */
export function followLagQuietly(d: Derived, lagBlocks: number | undefined): boolean {
  if (isBehind(lagBlocks) || isBehind(d.status.lagBlocks)) return false;
  d.status.lagBlocks = lagBlocks;
  return true;
}

/** The node's probes, and what its probes deciding "up" say together. */
interface ProbesSeen {
  probes: ProbeStatus[];
  /** Any of them ran (else the node's status is unknown). */
  liveRan: boolean;
  /** All of them (at least one) are held back by backoff. */
  liveBackingOff: boolean;
  liveFailing?: ProbeStatus;
  /** Latest start of their runs (0: none). */
  roundStart: number;
  lastCheckAt?: number;
  nextCheckAt?: number;
}

/** What probesSeen found last (one, reused: derive runs to its end before it runs again). */
const seen: ProbesSeen = {
  probes: [],
  liveRan: false,
  liveBackingOff: false,
  liveFailing: undefined,
  roundStart: 0,
  lastCheckAt: undefined,
  nextCheckAt: undefined,
};

function probesSeen(input: DeriveInput, now: number): ProbesSeen {
  const { node, live } = input;
  const out = seen;
  out.probes.length = 0;
  out.liveRan = false;
  out.liveBackingOff = false;
  out.liveFailing = undefined;
  out.roundStart = 0;
  out.lastCheckAt = undefined;
  out.nextCheckAt = undefined;
  let liveCount = 0;
  let liveBackingOff = true;
  for (const name of node.target.probes) {
    const s = node.probes.get(name);
    if (!s) continue;
    const p = probeStatus(out.probes.length, name, s, input, now);
    out.probes.push(p);
    if (p.lastRunAt !== undefined && (out.lastCheckAt === undefined || p.lastRunAt > out.lastCheckAt))
      out.lastCheckAt = p.lastRunAt;
    if (!live.includes(name)) continue;
    liveCount++;
    out.liveRan ||= p.outcome !== 'pending' && p.outcome !== 'unsupported';
    liveBackingOff &&= p.backingOff;
    if (p.outcome === 'failing') out.liveFailing ??= p;
    out.roundStart = Math.max(out.roundStart, p.lastRunAt ?? 0);
    if (p.nextCheckAt !== undefined && (out.nextCheckAt === undefined || p.nextCheckAt < out.nextCheckAt))
      out.nextCheckAt = p.nextCheckAt;
  }
  out.liveBackingOff = liveCount > 0 && liveBackingOff;
  return out;
}

/**
 * The node's status now. `over`: the node's last derived status, not handed out, to write over
 * when the new one has the same kind and probes (nothing new kept per poll); else a new one.
 */
export function deriveNodeStatus(input: DeriveInput, now: number, over?: Derived): Derived {
  const { node } = input;
  const seen = probesSeen(input, now);
  const { age, from } = blockAge(input, now);
  let status: StatusKind;
  let reasons: Reason[];
  if (!seen.liveRan) {
    status = 'unknown';
    reasons = [{ code: 'not_polled' }];
  } else if (!input.up) {
    status = 'down';
    reasons = [seen.liveFailing?.reason ?? { code: 'none' }];
  } else {
    reasons = degradedReasons(input, seen.probes, age, seen.roundStart || undefined);
    status = reasons.length > 0 ? 'degraded' : 'up';
  }
  const settled = roundSettled(seen.probes, node.target.intervalMs);
  const until = validUntil(node, from, age, now);
  if (over && over.status.status === status && sameProbes(over.status.probes, seen.probes)) {
    writeOver(over.status, input, seen, reasons, age);
    over.settled = settled;
    over.validUntil = until;
    over.ageFrom = from;
    return over;
  }
  const h = node.health;
  return {
    status: {
      name: node.target.name,
      network: node.target.network,
      status,
      reasons,
      text: joinedText(reasons, status),
      since: undefined,
      lastCheckAt: seen.lastCheckAt,
      nextCheckAt: seen.nextCheckAt,
      backingOff: seen.liveBackingOff,
      height: input.height,
      lagBlocks: input.lagBlocks,
      blockAgeSecs: age,
      version: h?.version,
      peers: h?.peerCount,
      labels: node.target.labels,
      namespace: node.namespace,
      probes: seen.probes.map(probeCopy),
    },
    settled,
    validUntil: until,
    ageFrom: from,
  };
}
