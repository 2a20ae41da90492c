// The board's events: status changes of nodes (a flapping node folded into one line), config
// reloads and alerts, newest kept; each node status change is also one log line.
import type { Logger } from '../logger.js';
import type { NodeStatus, StatusEvent, StatusEventKind } from './types.js';
import { formatDuration } from './words.js';

/** Status changes of one node closer together than this are folded into one "flapping" line. */
export const FLAP_WINDOW_MS = 10 * 60_000;
const NODE_EVENT_KINDS: ReadonlySet<StatusEventKind> = new Set(['node_down', 'node_up', 'node_degraded']);

export interface StatusEventsOptions {
  /** Events kept (newest). */
  max: number;
  logger?: Logger;
  /** Called after each event added (the board bumps its revision). */
  added: () => void;
}

export class StatusEvents {
  private events: StatusEvent[] = [];

  constructor(private readonly opts: StatusEventsOptions) {}

  /** One log line per status change; an event for the page when it is worth one. */
  transition(prev: NodeStatus, next: NodeStatus, now: number): void {
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
    this.add(e.kind, e.text, e.node, e.at, e.changes === undefined ? undefined : { changes: e.changes, firstAt: e.firstAt! });
  }

  add(kind: StatusEventKind, text: string, node: string | undefined, at: number, fold?: { changes: number; firstAt: number }): void {
    this.events.push({ at, kind, node, text, ...fold });
    if (this.events.length > this.opts.max) this.events.splice(0, this.events.length - this.opts.max);
    this.opts.added();
  }

  /** Newest first. */
  recent(limit: number, node?: string): StatusEvent[] {
    const out: StatusEvent[] = [];
    for (let i = this.events.length - 1; i >= 0 && out.length < limit; i--) {
      const e = this.events[i]!;
      if (node === undefined || e.node === node) out.push(e);
    }
    return out;
  }

  all(): StatusEvent[] {
    return this.events;
  }

  restore(events: StatusEvent[]): void {
    this.events = events.slice(-this.opts.max);
  }
}
