// The board's events: status changes of nodes (a flapping node folded into one line), config
// reloads and alerts, newest kept; each node status change is also one log line.
import type { Logger } from '../logger.js';
import type { NodeStatus, StatusEvent, StatusEventKind } from './types.js';
import { formatDuration } from './words.js';

/** Spells of a node closer together than this count towards flapping. */
export const FLAP_WINDOW_MS = 10 * 60_000;
/** A node that went bad this many times within FLAP_WINDOW_MS is flapping. */
export const FLAP_SPELLS = 3;
/** A node's recent lines looked at: enough for FLAP_SPELLS spells of down, degraded, up. */
const FLAP_LOOKBACK = 3 * FLAP_SPELLS;
const NODE_EVENT_KINDS: ReadonlySet<StatusEventKind> = new Set(['node_down', 'node_up', 'node_degraded']);

export interface FlapFold {
  /** Status changes folded, the new one included. */
  changes: number;
  /** Times the node went bad (from up), the new one included. */
  spells: number;
  firstAt: number;
  /** "down 3 times", "down or degraded 4 times" */
  words: string;
}

/**
 * Whether a node's new status event makes it flapping, given its earlier events in the window
 * (newest first, the oldest possibly a folded line). Pure. A spell starts when the node goes down
 * or degraded from up (or from nothing seen in the window); down and degraded in a row are one spell.
 */
export function flapFold(earlier: readonly StatusEvent[], e: StatusEvent): FlapFold | undefined {
  const chain = [...earlier].reverse();
  chain.push(e);
  const folded = chain[0]?.changes !== undefined ? chain[0] : undefined;
  let spells = folded?.spells ?? 0;
  let bad = folded ? folded.kind !== 'node_up' : false;
  let onlyDown = folded ? !/down or degraded/.test(folded.text) : true;
  for (const ev of folded ? chain.slice(1) : chain) {
    const isBad = ev.kind !== 'node_up';
    if (isBad && !bad) spells++;
    if (ev.kind === 'node_degraded') onlyDown = false;
    bad = isBad;
  }
  if (folded === undefined && spells < FLAP_SPELLS) return undefined;
  const changes = chain.reduce((n, f) => n + (f === e ? 1 : (f.changes ?? 1)), 0);
  const firstAt = Math.min(...chain.map((f) => f.firstAt ?? f.at));
  return { changes, spells, firstAt, words: `${onlyDown ? 'down' : 'down or degraded'} ${spells} times` };
}

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
    const fields = {
      node: next.name,
      network: next.network,
      status: next.status,
      previous: prev.status,
      reason: next.reasons[0]?.code,
    };
    const after = prev.since !== undefined ? ` after ${formatDuration(now - prev.since)}` : '';
    let kind: StatusEventKind | undefined;
    let text = '';
    if (next.status === 'down') {
      kind = 'node_down';
      text = `${next.name} down: ${next.text}`;
      log?.warn(fields, text);
    } else if (next.status === 'degraded') {
      kind = 'node_degraded';
      text =
        prev.status === 'down'
          ? `${next.name} up${after}, degraded: ${next.text}`
          : `${next.name} degraded: ${next.text}`;
      log?.warn(fields, text);
    } else if (next.status === 'up' && prev.status !== 'unknown') {
      kind = 'node_up';
      text = prev.status === 'down' ? `${next.name} up${after}` : `${next.name} healthy again${after}`;
      log?.info(fields, text);
    }
    if (kind) this.nodeEvent({ at: now, kind, node: next.name, text }, next);
  }

  /**
   * A node that went bad (down or degraded, from up) FLAP_SPELLS times within FLAP_WINDOW_MS is
   * flapping: its lines are folded into one ("rpc-flaky flapping: down 3 times in 4m10s, now up"),
   * so one flapping node cannot push every other event off the page. One hang and its recovery
   * (up, degraded, down, up) is one spell: its lines stay as they are.
   */
  private nodeEvent(e: StatusEvent & { node: string }, next: NodeStatus): void {
    const mine = this.recentOfNode(e.node, e.at);
    const fold = flapFold(
      mine.map((i) => this.events[i]!),
      e,
    );
    if (fold) {
      for (const i of mine) this.events.splice(i, 1);
      const now = next.status === 'up' ? 'up' : `${next.status}: ${next.text}`;
      e = {
        ...e,
        changes: fold.changes,
        firstAt: fold.firstAt,
        spells: fold.spells,
        text: `${e.node} flapping: ${fold.words} in ${formatDuration(e.at - fold.firstAt)}, now ${now}`,
      };
    }
    this.add(
      e.kind,
      e.text,
      e.node,
      e.at,
      fold ? { changes: fold.changes, firstAt: fold.firstAt, spells: fold.spells } : undefined,
    );
  }

  /** Indexes of the node's status events within FLAP_WINDOW_MS of `at`, newest first, back to its last folded line. */
  private recentOfNode(node: string, at: number): number[] {
    const mine: number[] = [];
    for (let i = this.events.length - 1; i >= 0 && mine.length < FLAP_LOOKBACK; i--) {
      const old = this.events[i]!;
      if (old.node !== node || !NODE_EVENT_KINDS.has(old.kind)) continue;
      if (at - old.at > FLAP_WINDOW_MS) break;
      mine.push(i);
      if (old.changes !== undefined) break;
    }
    return mine;
  }

  add(
    kind: StatusEventKind,
    text: string,
    node: string | undefined,
    at: number,
    fold?: { changes: number; firstAt: number; spells?: number },
  ): void {
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
