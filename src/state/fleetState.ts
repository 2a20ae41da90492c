// What the exporter knows about each node, updated by probe results. No I/O: the scheduler feeds
// results in, the metrics view reads snapshots out. A failed probe clears the values it owned,
// so nothing stale ever looks fresh.
import { isDeepStrictEqual } from 'node:util';
import { type FailureReason, type NodeTarget, type NodeValues, type ProbeName, type ProbeResult } from '../domain.js';
import { SYSTEM_CLOCK, toWall, type Clock } from '../clock/clock.js';
import { parseRetryAfter } from '../http/retryAfter.js';
import { applyProbeData, nodeProbe } from '../probes/registry.js';

export interface ProbeState {
  supported: boolean;
  /** When the probe was last found unsupported; it is re-checked rarely after that. */
  unsupportedAt?: number;
  lastRun?: { at: number; durationMs: number; ok: boolean };
  /** Runs finished (any outcome). */
  runs: number;
  lastSuccessAt?: number;
  /** Monotonic counts since the node entered the config. */
  failures: Record<FailureReason, number>;
  consecutiveFailures: number;
  /** Do not run again before this time (backoff after failures, or the server's Retry-After). */
  notBefore?: number;
}

export interface NodeState extends NodeValues {
  target: NodeTarget;
  probes: Map<ProbeName, ProbeState>;
  namespace?: string;
  lastSuccessAt?: number;
  /** Every configured probe has finished at least once. */
  firstRoundDone: boolean;
  /**
   * New (unique) at every result and every change of settings a view shows, so views can keep per-node work while it
   * stays the same.
   */
  revision: number;
}

export interface ApplyOutcome {
  /** The node restarted or changed build: forget detected namespace and unsupported marks. */
  readonly restarted: boolean;
}

// Shared answers: apply() runs for every result.
const RESTARTED: ApplyOutcome = Object.freeze({ restarted: true });
const NOT_RESTARTED: ApplyOutcome = Object.freeze({ restarted: false });

export interface BackoffPolicy {
  /** Failures in a row before polling slows down. */
  after: number;
  /** Longest pause between attempts, as a multiple of the node's interval. */
  maxFactor: number;
  /** Jitter fraction added to a pause, so a fleet of dead nodes does not retry in lockstep. */
  jitter: number;
  random: () => number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { after: 2, maxFactor: 8, jitter: 0.2, random: Math.random };

/**
 * Every field from the start, the optional ones undefined: fields added later go to a separate
 * property array (~80 bytes a probe, 5 probes a node).
 */
function newProbeState(): ProbeState {
  return {
    supported: true,
    unsupportedAt: undefined,
    lastRun: undefined,
    runs: 0,
    lastSuccessAt: undefined,
    failures: NO_FAILURES,
    consecutiveFailures: 0,
    notBefore: undefined,
  };
}

/** A literal (the type checks it names every reason): its fields in the object itself, not in a property array. */
function zeroFailures(): Record<FailureReason, number> {
  const zero = { timeout: 0, connect: 0, http_5xx: 0, http_4xx: 0, invalid_response: 0, rpc_error: 0 };
  return zero satisfies Record<FailureReason, number>;
}

/**
 * The counts of every probe that never failed: one frozen object, not one each (~70 bytes a probe,
 * 5 probes a node); a probe's first failure gives it counts of its own. Views handed out before
 * it keep showing zero.
 */
const NO_FAILURES: Readonly<Record<FailureReason, number>> = Object.freeze(zeroFailures());

/** Revisions are unique across nodes and node states: a replaced node never repeats one. */
let lastRevision = 0;
const nextRevision = () => ++lastRevision;

function newNodeState(target: NodeTarget): NodeState {
  return {
    target,
    probes: new Map(target.probes.map((p) => [p, newProbeState()])),
    upstreamVersion: 0,
    firstRoundDone: false,
    revision: nextRevision(),
  };
}

/** Fields that, when changed, make a node a different node (its history no longer applies). */
function identity(t: NodeTarget): string {
  return JSON.stringify([t.url, t.network, t.rpcNamespace]);
}

/** Settings the views show or derive from; when none changed, a reload keeps the node's revision (and their work). */
function sameViewedSettings(a: NodeTarget, b: NodeTarget): boolean {
  return (
    a.intervalMs === b.intervalMs &&
    a.timeoutMs === b.timeoutMs &&
    isDeepStrictEqual(a.labels, b.labels) &&
    isDeepStrictEqual(a.probes, b.probes)
  );
}

/** Probes whose answer decides whether a node is up: health or blockNumber, else metrics. */
export function livenessProbes(probes: readonly ProbeName[]): ProbeName[] {
  const decisive = probes.filter((p) => p === 'health' || p === 'blockNumber');
  return decisive.length > 0 ? decisive : probes.filter((p) => p === 'metrics');
}

/** Up: the last run of one of the node's liveness probes (`live`, by default from its probe list) answered validly. */
export function isUp(n: NodeState, live: readonly ProbeName[] = livenessProbes([...n.probes.keys()])): boolean {
  for (const p of live) if (n.probes.get(p)?.lastRun?.ok) return true;
  return false;
}

/** Height from /health, else from blockNumber; none while the node is not up (an old height must not look fresh). */
export function nodeHeight(n: NodeState, up: boolean): number | undefined {
  return up ? (n.health?.height ?? n.blockNumber) : undefined;
}

/** A node that answers again is seen up within this long: two intervals, or 30 s if longer. */
export function recoveryWindowMs(intervalMs: number): number {
  return Math.max(2 * intervalMs, 30_000);
}

/**
 * Longest backoff pause of a liveness probe. Runs start on the interval grid, so a pause of
 * (k-1) intervals after a run means the next run at most k intervals later, k = window / interval.
 */
export function recoveryPauseCap(intervalMs: number): number {
  return (Math.floor(recoveryWindowMs(intervalMs) / intervalMs) - 1) * intervalMs;
}

/** Pause after `failures` consecutive failures, in ms; 0 means run on the normal schedule. */
export function backoffDelay(failures: number, intervalMs: number, policy: BackoffPolicy): number {
  if (failures < policy.after) return 0;
  const factor = Math.min(2 ** (failures - policy.after + 1), policy.maxFactor);
  return intervalMs * factor * (1 + policy.jitter * policy.random());
}

export { parseRetryAfter };

/**
 * What changed in a fleet since its watcher last looked (see FleetState.watch), so a view can take
 * in only that instead of walking every node: walking 10,000 nodes several times a second costs
 * more than the results themselves.
 */
export class FleetChanges {
  /** Nodes came, went or were replaced: read the whole fleet (the watcher clears it). */
  membership = true;
  /** Nodes with a new revision; the watcher clears the set when it has read them. */
  readonly nodes = new Set<NodeState>();
}

export class FleetState {
  private readonly byName = new Map<string, NodeState>();
  private readonly watchers = new Set<FleetChanges>();
  /**
   * The node looked up last: a tick asks about each probe of one node, then its result is applied,
   * all by name; one table lookup (a cache miss at 10,000 nodes) serves them.
   */
  private lastName: string | undefined;
  private lastNode: NodeState | undefined;

  constructor(
    targets: NodeTarget[],
    private readonly backoff: BackoffPolicy = DEFAULT_BACKOFF,
    /** The probers' clock: result times are its monotonic readings. */
    private readonly clock: Clock = SYSTEM_CLOCK,
  ) {
    this.setTargets(targets);
  }

  /** Applies a new config: unchanged nodes keep their state, removed nodes are dropped. */
  setTargets(targets: NodeTarget[]): { added: string[]; removed: string[]; changed: string[] } {
    this.lastName = this.lastNode = undefined;
    const added: string[] = [];
    const changed: string[] = [];
    const keep = new Set(targets.map((t) => t.name));
    const removed = [...this.byName.keys()].filter((n) => !keep.has(n));
    for (const n of removed) this.byName.delete(n);
    for (const t of targets) {
      const old = this.byName.get(t.name);
      if (!old) {
        this.byName.set(t.name, newNodeState(t));
        added.push(t.name);
      } else if (identity(old.target) !== identity(t)) {
        this.byName.set(t.name, newNodeState(t));
        changed.push(t.name);
      } else {
        // Same node: keep history, take new settings (interval, labels, probe list).
        const sameViewed = sameViewedSettings(old.target, t);
        old.target = t;
        for (const p of [...old.probes.keys()]) {
          if (t.probes.includes(p)) continue;
          old.probes.delete(p);
          // No run will replace or clear what it stored (a health height would hide blockNumber's).
          nodeProbe(p).clear(old);
        }
        for (const p of t.probes) if (!old.probes.has(p)) old.probes.set(p, newProbeState());
        if (!sameViewed) this.revise(old);
        old.firstRoundDone = old.firstRoundDone && [...old.probes.values()].every((s) => s.lastRun);
      }
    }
    if (added.length + removed.length + changed.length > 0) for (const w of this.watchers) this.renew(w);
    return { added, removed, changed };
  }

  /** Starts recording changes for one view; it reads and clears what it is given. */
  watch(): FleetChanges {
    const w = new FleetChanges();
    this.watchers.add(w);
    return w;
  }

  unwatch(w: FleetChanges): void {
    this.watchers.delete(w);
  }

  get size(): number {
    return this.byName.size;
  }

  private renew(w: FleetChanges): void {
    w.membership = true;
    w.nodes.clear();
  }

  private revise(node: NodeState): void {
    node.revision = nextRevision();
    for (const w of this.watchers) w.nodes.add(node);
  }

  get(name: string): NodeState | undefined {
    if (name === this.lastName) return this.lastNode;
    const node = this.byName.get(name);
    this.lastName = name;
    this.lastNode = node;
    return node;
  }

  nodes(): IterableIterator<NodeState> {
    return this.byName.values();
  }

  /** Ready once every node has finished one round of its probes. */
  ready(): boolean {
    for (const n of this.byName.values()) if (!n.firstRoundDone) return false;
    return true;
  }

  /** Whether a probe should run now (supported or due for a re-check, and not backing off). */
  due(name: string, probe: ProbeName, now: number, unsupportedRecheckMs: number): boolean {
    const ps = this.get(name)?.probes.get(probe);
    if (!ps) return false;
    if (!ps.supported && ps.unsupportedAt !== undefined && now - ps.unsupportedAt < unsupportedRecheckMs) return false;
    return ps.notBefore === undefined || now >= ps.notBefore;
  }

  apply(name: string, result: ProbeResult, retryAfter?: string | string[]): ApplyOutcome {
    const node = this.get(name);
    const ps = node?.probes.get(result.probe);
    if (!node || !ps) return NOT_RESTARTED; // node removed by a reload while the probe ran
    const end = result.startedAt + result.durationMs;
    // Updated in place: a new object per result would outlive a scavenge (it is kept a whole interval).
    const run = ps.lastRun;
    if (run) {
      run.at = result.startedAt;
      run.durationMs = result.durationMs;
      run.ok = result.kind === 'ok';
    } else ps.lastRun = { at: result.startedAt, durationMs: result.durationMs, ok: result.kind === 'ok' };
    ps.runs++;
    this.revise(node);
    let restarted = false;

    if (result.kind === 'ok') {
      ps.supported = true;
      ps.unsupportedAt = undefined;
      ps.consecutiveFailures = 0;
      ps.notBefore = undefined;
      ps.lastSuccessAt = end;
      node.lastSuccessAt = end;
      if (result.namespace) node.namespace = result.namespace;
      restarted = applyProbeData(node, result.data, end);
    } else {
      nodeProbe(result.probe).clear(node);
      if (result.kind === 'unsupported') {
        ps.supported = false;
        ps.unsupportedAt = end;
        ps.consecutiveFailures = 0;
        ps.notBefore = undefined;
      } else {
        if (ps.failures === NO_FAILURES) ps.failures = zeroFailures();
        ps.failures[result.reason]++;
        ps.consecutiveFailures++;
        let backoff = backoffDelay(ps.consecutiveFailures, node.target.intervalMs, this.backoff);
        // The probes that decide "up" keep a short pause, so a node that answers again is seen
        // within the recovery window; the node's other failing probes keep their full backoff.
        if (livenessProbes(node.target.probes).includes(result.probe))
          backoff = Math.min(backoff, recoveryPauseCap(node.target.intervalMs));
        // An HTTP-date is the server's wall clock: compared with ours once, then a monotonic delay.
        const pause = Math.max(backoff, parseRetryAfter(retryAfter, toWall(this.clock, end)) ?? 0);
        ps.notBefore = pause > 0 ? end + pause : undefined;
      }
    }
    if (restarted) {
      node.namespace = undefined;
      for (const s of node.probes.values()) {
        s.supported = true;
        s.unsupportedAt = undefined;
      }
    }
    if (!node.firstRoundDone) node.firstRoundDone = [...node.probes.values()].every((s) => s.lastRun);
    return restarted ? RESTARTED : NOT_RESTARTED;
  }
}
