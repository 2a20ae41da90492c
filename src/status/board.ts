// The status board: derives every node's status from fleet snapshots, records each poll in the
// node's history, turns status changes into events and one log line each. Clock injected; no I/O
// (the history file is read and written by its owner through toFile/restore).
import type { ProbeName, ProbeResult } from '../domain.js';
import type { Logger } from '../logger.js';
import type { FleetSnapshot } from '../state/snapshot.js';
import { livenessProbes } from '../state/fleetState.js';
import { deriveNodeStatus, type ProbeTiming } from './derive.js';
import { NodeHistory, type PollEntry, type UptimeWindow } from './history.js';
import type { StatusFileData } from './persist.js';
import type { NodeStatus, ProbeFailure, StatusEvent, StatusEventKind, StatusKind } from './types.js';
import { formatDuration } from './words.js';

/** What the board reads of a node besides the snapshot: its settings and probe timing. */
export interface NodeTimingSource {
  (name: string): { intervalMs: number; timeoutMs: number; probes: ReadonlyMap<ProbeName, ProbeTiming> } | undefined;
}

export interface StatusBoardOptions {
  now?: () => number;
  logger?: Logger;
  /** Events kept (newest). Default 200. */
  maxEvents?: number;
}

/** Status changes of one node closer together than this are folded into one "flapping" line. */
export const FLAP_WINDOW_MS = 10 * 60_000;
const NODE_EVENT_KINDS: ReadonlySet<StatusEventKind> = new Set(['node_down', 'node_up', 'node_degraded']);

interface Tracked {
  status: NodeStatus;
  history: NodeHistory;
  failures: Map<ProbeName, ProbeFailure>;
  heightSince?: { height: number; since: number };
  /** Newest liveness run already in the history. */
  recordedAt: number;
  /** Since when a change of status waits for the node's poll round to finish. */
  heldSince?: number;
  /** Status saved by the previous run, taken as the previous status once this run has polled. */
  restored?: { status: StatusKind; since?: number };
}

export class StatusBoard {
  private readonly byName = new Map<string, Tracked>();
  private events: StatusEvent[] = [];
  private readonly now: () => number;
  private readonly maxEvents: number;
  private version = 0;
  private updatedAt?: number;

  constructor(private readonly opts: StatusBoardOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.maxEvents = opts.maxEvents ?? 200;
  }

  /** Keeps what a failing probe said, to explain the node's status in words. */
  noteResult(node: string, result: ProbeResult): void {
    if (result.kind !== 'failed') return;
    const t = this.track(node);
    const h = result.response?.headers;
    const type = String(h?.['content-type'] ?? '');
    t.failures.set(result.probe, {
      at: result.startedAt,
      reason: result.reason,
      message: result.message,
      httpStatus: result.httpStatus,
      fromProxy: /html/i.test(type) || h?.server !== undefined || h?.via !== undefined,
    });
  }

  noteConfigReload(accepted: boolean, text: string): void {
    this.event(accepted ? 'config_accepted' : 'config_rejected', text);
  }

  /** Called by the alert engine when an alert starts or stops firing. */
  noteAlert(e: { name: string; labels: Record<string, string>; state: 'firing' | 'resolved'; summary?: string }): void {
    const where = e.labels.node ?? e.labels.network;
    this.event(e.state === 'firing' ? 'alert_firing' : 'alert_resolved', `${e.name}${where ? ` (${where})` : ''} ${e.state}${e.summary ? `: ${e.summary}` : ''}`, e.labels.node);
  }

  /** Derives every node's status from a snapshot taken now. */
  update(snap: FleetSnapshot, timing: NodeTimingSource): void {
    const now = this.now();
    const seen = new Set<string>();
    for (const view of snap.nodes) {
      const tm = timing(view.name);
      if (!tm) continue;
      seen.add(view.name);
      const t = this.track(view.name);
      if (view.height !== undefined && t.heightSince?.height !== view.height) t.heightSince = { height: view.height, since: now };
      const { settled, ...derived } = deriveNodeStatus({ view, intervalMs: tm.intervalMs, timeoutMs: tm.timeoutMs, timing: tm.probes, failures: t.failures, heightSince: t.heightSince }, now);
      let prev = t.status;
      // A change seen in the middle of a poll round (fresh and old answers mixed) waits for the
      // round to finish, at most as long as a round can take (probes run one after another, each
      // bounded by the timeout), so one slow round is not logged as two changes.
      const longestRound = tm.intervalMs + tm.probes.size * tm.timeoutMs;
      if (derived.status !== prev.status && prev.status !== 'unknown' && !settled && now - (t.heldSince ??= now) < longestRound) continue;
      t.heldSince = undefined;
      if (t.restored && derived.status !== 'unknown') {
        prev = { ...prev, status: t.restored.status, since: t.restored.since };
        t.restored = undefined;
      }
      const status: NodeStatus = { ...derived, since: prev.status === derived.status ? prev.since : now };
      if (prev.status !== status.status) this.transition(prev, status, now);
      t.status = status;
      this.record(t, status, tm.probes);
    }
    for (const name of this.byName.keys()) if (!seen.has(name)) this.byName.delete(name);
    this.version++;
    this.updatedAt = now;
  }

  /** Adds a history entry when a liveness probe ran since the last one recorded. */
  private record(t: Tracked, s: NodeStatus, timing: ReadonlyMap<ProbeName, ProbeTiming>): void {
    if (s.status === 'unknown') return;
    const live = livenessProbes(s.probes.map((p) => p.probe));
    const runs = s.probes.filter((p) => live.includes(p.probe) && p.lastRunAt !== undefined);
    const last = runs.reduce((a, p) => Math.max(a, timing.get(p.probe)?.lastRunAt ?? 0), 0);
    if (last <= t.recordedAt) return;
    t.recordedAt = last;
    const duration = Math.max(...runs.map((p) => p.durationMs ?? 0));
    t.history.add({ at: last, outcome: s.status, durationMs: duration, reason: s.reasons[0] ?? { code: 'none' } });
  }

  private transition(prev: NodeStatus, next: NodeStatus, now: number): void {
    const log = this.opts.logger;
    const fields = { node: next.name, network: next.network, status: next.status, previous: prev.status, reason: next.reasons[0]?.code };
    const after = prev.since !== undefined ? ` after ${formatDuration(now - prev.since)}` : '';
    let kind: StatusEventKind | undefined;
    let text = '';
    if (next.status === 'down') {
      kind = 'node_down';
      text = `${next.name} down: ${next.text}`;
      log?.warn(fields, text);
    } else if (next.status === 'degraded') {
      kind = 'node_degraded';
      text = prev.status === 'down' ? `${next.name} up${after}, degraded: ${next.text}` : `${next.name} degraded: ${next.text}`;
      log?.warn(fields, text);
    } else if (next.status === 'up' && prev.status !== 'unknown') {
      kind = 'node_up';
      text = prev.status === 'down' ? `${next.name} up${after}` : `${next.name} healthy again${after}`;
      log?.info(fields, text);
    }
    if (kind) this.nodeEvent({ at: now, kind, node: next.name, text }, next);
  }

  /**
   * A third status change of a node within FLAP_WINDOW_MS replaces the node's earlier lines with
   * one ("rpc-flaky flapping: 9 changes in 60 s, now down: ..."), so one flapping node cannot push
   * every other event off the page; a plain down-then-up stays two lines.
   */
  private nodeEvent(e: StatusEvent & { node: string }, next: NodeStatus): void {
    const mine: number[] = [];
    for (let i = this.events.length - 1; i >= 0 && mine.length < 2; i--) {
      const old = this.events[i]!;
      if (old.node !== e.node || !NODE_EVENT_KINDS.has(old.kind)) continue;
      if (e.at - old.at > FLAP_WINDOW_MS) break;
      mine.push(i);
      if (old.changes !== undefined) break;
    }
    const last = this.events[mine[0] ?? -1];
    if (mine.length === 2 || last?.changes !== undefined) {
      const folded = mine.map((i) => this.events[i]!);
      const changes = folded.reduce((n, f) => n + (f.changes ?? 1), 1);
      const firstAt = Math.min(...folded.map((f) => f.firstAt ?? f.at));
      for (const i of mine) this.events.splice(i, 1);
      const now = next.status === 'up' ? 'up' : `${next.status}: ${next.text}`;
      e = { ...e, changes, firstAt, text: `${e.node} flapping: ${changes} changes in ${formatDuration(e.at - firstAt)}, now ${now}` };
    }
    this.event(e.kind, e.text, e.node, e.at, e.changes === undefined ? undefined : { changes: e.changes, firstAt: e.firstAt! });
  }

  private event(kind: StatusEventKind, text: string, node?: string, at = this.now(), fold?: { changes: number; firstAt: number }): void {
    this.events.push({ at, kind, node, text, ...fold });
    if (this.events.length > this.maxEvents) this.events.splice(0, this.events.length - this.maxEvents);
    this.version++;
  }

  private track(name: string): Tracked {
    let t = this.byName.get(name);
    if (!t) {
      t = { status: unknownStatus(name), history: new NodeHistory(), failures: new Map(), recordedAt: 0 };
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

  nodes(): NodeStatus[] {
    return [...this.byName.values()].map((t) => t.status);
  }

  node(name: string): NodeStatus | undefined {
    return this.byName.get(name)?.status;
  }

  history(name: string, limit?: number): PollEntry[] {
    return this.byName.get(name)?.history.entries(limit) ?? [];
  }

  uptime(name: string, window: UptimeWindow): number | undefined {
    return this.byName.get(name)?.history.uptime(window, this.now());
  }

  /** Newest first. */
  recentEvents(limit = 50, node?: string): StatusEvent[] {
    const out: StatusEvent[] = [];
    for (let i = this.events.length - 1; i >= 0 && out.length < limit; i--) {
      const e = this.events[i]!;
      if (node === undefined || e.node === node) out.push(e);
    }
    return out;
  }

  toFile(): StatusFileData {
    return {
      nodes: [...this.byName].map(([name, t]) => {
        const s = t.status.status === 'unknown' && t.restored ? t.restored : t.status;
        return { name, history: t.history, status: s.status, since: s.since };
      }),
      events: this.events,
    };
  }

  /** Takes history, last status and events saved by an earlier run (before the first update). */
  restore(data: StatusFileData): void {
    for (const n of data.nodes) {
      const last = n.history.entries(1)[0];
      const restored = n.status && n.status !== 'unknown' ? { status: n.status, since: n.since } : undefined;
      this.byName.set(n.name, { status: unknownStatus(n.name), history: n.history, failures: new Map(), recordedAt: last?.at ?? 0, restored });
    }
    this.events = data.events.slice(-this.maxEvents);
  }
}

function unknownStatus(name: string): NodeStatus {
  return { name, network: '', status: 'unknown' as StatusKind, reasons: [{ code: 'not_polled' }], text: 'not polled yet', backingOff: false, labels: {}, probes: [] };
}
