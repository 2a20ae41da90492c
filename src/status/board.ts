// The status board: derives every node's status from the fleet state, records each poll in the
// node's history, turns status changes into events and one log line each. Clock injected; no I/O
// (the history file is read and written by its owner through toFile/restore). A node's status is
// derived again only when its state, its lag or the clock says it may have changed, and an update
// looks only at those nodes (the fleet says which changed), so it costs what changed: a pass over
// every node, several times a second, costs a fifth of the exporter's CPU at 1,000 nodes / 15 s.
import { SYSTEM_CLOCK } from '../clock/clock.js';
import type { ProbeResult } from '../domain.js';
import type { Logger } from '../logger.js';
import { BoardReader, type BoardFleet } from './boardReader.js';
import { deriveNodeStatus, followLag, followLagQuietly, type DeriveInput, type Derived } from './derive.js';
import { StatusEvents } from './events.js';
import { NodeHistory, type PollEntry, type UptimeWindow } from './history.js';
import type { StatusFileData } from './persist.js';
import { failuresOf, newTracked, NO_FAILURES, type Tracked } from './tracked.js';
import type { NodeStatus, Reason, StatusEvent } from './types.js';

export type { BoardFleet };

export interface StatusBoardOptions {
  /** Monotonic time on the epoch scale, as the node state's times (default the system's). */
  now?: () => number;
  logger?: Logger;
  /** Events kept (newest). Default 200. */
  maxEvents?: number;
  /** Derives one node's status; default deriveNodeStatus (tests count the calls through it). */
  derive?: (input: DeriveInput, now: number, over?: Derived) => Derived;
}

export class StatusBoard {
  private readonly byName = new Map<string, Tracked>();
  private readonly events: StatusEvents;
  private readonly now: () => number;
  private readonly derive: (input: DeriveInput, now: number, over?: Derived) => Derived;
  /** What derive reads of a node (one, filled per node: derive keeps none of it). */
  private readonly input: DeriveInput = {
    node: undefined as unknown as DeriveInput['node'],
    live: [],
    up: false,
    height: undefined,
    lagBlocks: undefined,
    failures: NO_FAILURES,
    heightSince: undefined,
  };
  private version = 0;
  private updatedAt?: number;
  private readonly reader = new BoardReader(
    this.byName,
    (name) => this.track(name),
    // What refreshNode would do for a node with nothing else due: a lag on the same side of the
    // "behind" limit, short of it, changes the shown lag alone.
    (t, lag) => t.derived !== undefined && !t.changed && followLagQuietly(t.derived, lag),
  );

  constructor(private readonly opts: StatusBoardOptions = {}) {
    this.now = opts.now ?? (() => SYSTEM_CLOCK.mono());
    this.events = new StatusEvents({ max: opts.maxEvents ?? 200, logger: opts.logger, added: () => this.version++ });
    this.derive = opts.derive ?? deriveNodeStatus;
  }

  /** Keeps what a failing probe said, to explain the node's status in words. */
  noteResult(node: string, result: ProbeResult): void {
    if (result.kind !== 'failed') return;
    const t = this.track(node);
    const h = result.response?.headers;
    const type = String(h?.['content-type'] ?? '');
    failuresOf(t).set(result.probe, {
      at: result.startedAt,
      reason: result.reason,
      message: result.message,
      httpStatus: result.httpStatus,
      fromProxy: /html/i.test(type) || h?.server !== undefined || h?.via !== undefined,
    });
  }

  noteConfigReload(accepted: boolean, text: string): void {
    this.events.add(accepted ? 'config_accepted' : 'config_rejected', text, undefined, this.now());
  }

  /** Called by the alert engine when an alert starts or stops firing. */
  noteAlert(e: { name: string; labels: Record<string, string>; state: 'firing' | 'resolved'; summary?: string }): void {
    const where = e.labels.node ?? e.labels.network;
    this.events.add(
      e.state === 'firing' ? 'alert_firing' : 'alert_resolved',
      `${e.name}${where ? ` (${where})` : ''} ${e.state}${e.summary ? `: ${e.summary}` : ''}`,
      e.labels.node,
      this.now(),
    );
  }

  /** Brings every node's status up to date with the fleet state now. */
  update(fleet: BoardFleet): void {
    const now = this.now();
    const visit = this.reader.look(fleet);
    const all = this.reader.readAllLast;
    for (const t of visit) if (this.refreshNode(t, this.reader.lag(t), now) || all) this.reader.note(t);
    visit.length = 0;
    this.version++;
    this.updatedAt = now;
  }

  /**
   * Derives the node's status again when its state changed, its time is up (validUntil) or its lag
   * crossed the "behind" limit; otherwise the lag (with a node behind, its words) and the board's
   * own block age follow, in place. A held change is looked at again on every update until it is
   * taken. False when only the in-place values changed (what the reader keeps per node did not).
   */
  private refreshNode(t: Tracked, lagBlocks: number | undefined, now: number): boolean {
    let d = t.derived;
    if (!d || t.changed || now >= d.validUntil || !followLag(d, lagBlocks)) {
      const input = this.inputOf(t, lagBlocks, now);
      // The shown status is written over only while no one was handed it, no change is held and
      // no status from the previous run waits (derive writes over it only when its kind stays).
      const over = d && d.status === t.status && !t.lent && t.heldSince === undefined && !t.restored ? d : undefined;
      d = t.derived = this.derive(input, now, over);
      t.changed = false;
    } else {
      if (d.ageFrom !== undefined) d.status.blockAgeSecs = Math.floor((now - d.ageFrom) / 1000);
      if (t.heldSince === undefined) return false;
    }
    this.take(t, d, now);
    return true;
  }

  /** What derive reads of the node, in the board's one input object. */
  private inputOf(t: Tracked, lagBlocks: number | undefined, now: number): DeriveInput {
    if (t.height !== undefined && t.heightSince?.height !== t.height) {
      // Read only by derive (its since copied out), so kept in one object per node.
      if (!t.heightSince) t.heightSince = { height: t.height, since: now };
      t.heightSince.height = t.height;
      t.heightSince.since = now;
    }
    const input = this.input;
    input.node = t.node!;
    input.live = t.live;
    input.up = t.up;
    input.height = t.height;
    input.lagBlocks = lagBlocks;
    input.failures = t.failures;
    input.heightSince = t.heightSince;
    return input;
  }

  /** Shows a derived status, unless it is a change seen mid-round (then held, see below). */
  private take(t: Tracked, d: Derived, now: number): void {
    const next = d.status;
    let prev = t.status;
    // A change seen in the middle of a poll round (fresh and old answers mixed) waits for the
    // round to finish, at most as long as a round can take (probes run one after another, each
    // bounded by the timeout), so one slow round is not logged as two changes.
    const target = t.node!.target;
    const longestRound = target.intervalMs + t.node!.probes.size * target.timeoutMs;
    if (
      next.status !== prev.status &&
      prev.status !== 'unknown' &&
      !d.settled &&
      now - (t.heldSince ??= now) < longestRound
    )
      return;
    t.heldSince = undefined;
    if (t.restored && next.status !== 'unknown') {
      prev = { ...prev, status: t.restored.status, since: t.restored.since };
      t.restored = undefined;
    }
    next.since = prev.status === next.status ? prev.since : now;
    if (prev.status !== next.status) this.events.transition(prev, next, now);
    if (t.status !== next) t.lent = false;
    t.status = next;
    this.record(t, next);
  }

  /** Adds a history entry when a liveness probe ran since the last one recorded. */
  private record(t: Tracked, s: NodeStatus): void {
    if (s.status === 'unknown') return;
    let last = 0;
    let duration = 0;
    for (const p of s.probes) {
      if (p.lastRunAt === undefined || !t.live.includes(p.probe)) continue;
      last = Math.max(last, p.lastRunAt);
      duration = Math.max(duration, p.durationMs ?? 0);
    }
    if (last <= t.recordedAt) return;
    t.recordedAt = last;
    t.history.addPoll(last, s.status, duration, s.reasons[0] ?? NO_REASON);
  }

  private track(name: string): Tracked {
    let t = this.byName.get(name);
    if (!t) {
      t = newTracked(name, new NodeHistory(), 0);
      this.byName.set(name, t);
    }
    return t;
  }

  /** Bumped on every update or event: views cache on it. */
  get revision(): number {
    return this.version;
  }

  get lastUpdate(): number | undefined {
    return this.updatedAt;
  }

  /** Every node's status; each is never written again (the board derives a new one). */
  nodes(): NodeStatus[] {
    return [...this.byName.values()].map(lend);
  }

  /** The node's status; never written again (the board derives a new one). */
  node(name: string): NodeStatus | undefined {
    const t = this.byName.get(name);
    return t && lend(t);
  }

  history(name: string, limit?: number): PollEntry[] {
    return this.byName.get(name)?.history.entries(limit) ?? [];
  }

  uptime(name: string, window: UptimeWindow): number | undefined {
    return this.byName.get(name)?.history.uptime(window, this.now());
  }

  /** How much of the window the uptime figure covers (the node's first poll to now), ms. */
  uptimeCovers(name: string, window: UptimeWindow): number {
    return this.byName.get(name)?.history.covered(window, this.now()) ?? 0;
  }

  /** Newest first. */
  recentEvents(limit = 50, node?: string): StatusEvent[] {
    return this.events.recent(limit, node);
  }

  toFile(): StatusFileData {
    return {
      nodes: [...this.byName].map(([name, t]) => {
        const s = t.status.status === 'unknown' && t.restored ? t.restored : t.status;
        return { name, history: t.history, status: s.status, since: s.since };
      }),
      events: this.events.all(),
    };
  }

  /** Takes history, last status and events saved by an earlier run (before the first update). */
  restore(data: StatusFileData): void {
    for (const n of data.nodes) {
      const last = n.history.entries(1)[0];
      const restored = n.status && n.status !== 'unknown' ? { status: n.status, since: n.since } : undefined;
      this.byName.set(n.name, { ...newTracked(n.name, n.history, last?.at ?? 0), restored });
    }
    this.events.restore(data.events);
    this.reader.readAllNext();
  }
}

const NO_REASON: Reason = Object.freeze({ code: 'none' });

/** The node's status as handed out: from now on the board makes a new one rather than write over it. */
function lend(t: Tracked): NodeStatus {
  t.lent = true;
  return t.status;
}
