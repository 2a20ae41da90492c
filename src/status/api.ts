// The JSON views of the status board (/api/v1/nodes, /api/v1/nodes/<name>); the pages render
// the same rows, and the page script refreshes itself from them.
import type { StatusBoard } from './board.js';
import { STATUS_LABEL } from './html.js';
import { UPTIME_WINDOWS, type PollEntry, type UptimeWindow } from './history.js';
import type { AlertView, NodeStatus, StatusEvent, StatusKind } from './types.js';
import { reasonText, uptimeSummary, uptimeText } from './words.js';
import { watchRows } from './watchSection.js';
import type { WatchSnapshot } from '../watch/types.js';
import { headlineText, pageAlerts } from './headline.js';

export interface StatusSource {
  board: StatusBoard;
  /** Monotonic time, the board's clock. */
  now: () => number;
  /**
   * The wall time of one of the board's monotonic times, as the wall clock reads now (clock.ts
   * toWall): every time shown is one, so a wall-clock step moves none of them off the wall clock.
   * Absent: the board's times are shown as they are (one clock, tests).
   */
  toWall?: (mono: number) => number;
  /** How often pages refresh themselves, ms. */
  refreshMs: number;
  /** Alerts of the built-in engine; undefined when it does not run. */
  activeAlerts?: () => AlertView[] | undefined;
  /** Rows per page of the fleet page (default PAGE_ROWS). */
  pageRows?: number;
  /** The watched validators, miners and accounts; absent without a watch: section. */
  watch?: () => WatchSnapshot | undefined;
  /** Problems of the exporter itself a person must see (an alert state that cannot be written). */
  notices?: () => string[];
}

const ORDER: Record<StatusKind, number> = { down: 0, degraded: 1, unknown: 2, up: 3 };

export function sortedNodes(board: StatusBoard): NodeStatus[] {
  return board
    .nodes()
    .sort(
      (a, b) => ORDER[a.status] - ORDER[b.status] || a.network.localeCompare(b.network) || a.name.localeCompare(b.name),
    );
}

const WINDOWS = Object.keys(UPTIME_WINDOWS) as UptimeWindow[];
const WINDOW_LABEL: Record<UptimeWindow, string> = { '1h': '1 h', '24h': '24 h', '7d': '7 d' };

function uptimes(board: StatusBoard, name: string): Record<UptimeWindow, number | null> {
  const out = {} as Record<UptimeWindow, number | null>;
  for (const w of WINDOWS) out[w] = board.uptime(name, w) ?? null;
  return out;
}

/** How much of each window its uptime figure covers, ms (less than the window until polled that long). */
function coverage(board: StatusBoard, name: string): Record<UptimeWindow, number> {
  const out = {} as Record<UptimeWindow, number>;
  for (const w of WINDOWS) out[w] = board.uptimeCovers(name, w);
  return out;
}

/** The node page's uptime line in words (uptimeSummary). */
function uptimeWords(up: Record<UptimeWindow, number | null>, covers: Record<UptimeWindow, number>): string {
  return uptimeSummary(
    WINDOWS.map((w) => ({ label: WINDOW_LABEL[w], windowMs: UPTIME_WINDOWS[w], value: up[w], coveredMs: covers[w] })),
  );
}

/** A time of the board as shown: its wall time (null when there is none). */
export function shownTime(src: Pick<StatusSource, 'toWall'>, mono: number | undefined): number | null {
  if (mono === undefined) return null;
  return src.toWall ? src.toWall(mono) : mono;
}

/** Now as shown (the wall time of the board's now). */
export const shownNow = (src: StatusSource): number => shownTime(src, src.now())!;

export function pollJson(e: PollEntry, src: Pick<StatusSource, 'toWall'> = {}) {
  return { at: shownTime(src, e.at)!, outcome: e.outcome, durationMs: e.durationMs, reason: reasonText(e.reason) };
}

export function nodeRow(src: StatusSource, s: NodeStatus, recent: number) {
  const board = src.board;
  const uptime = uptimes(board, s.name);
  const uptimeCovers = coverage(board, s.name);
  return {
    name: s.name,
    network: s.network,
    status: s.status,
    label: STATUS_LABEL[s.status],
    reason: s.text,
    reasons: s.reasons.map((r) => ({ code: r.code, text: reasonText(r) })),
    since: shownTime(src, s.since),
    lastCheck: shownTime(src, s.lastCheckAt),
    nextCheck: shownTime(src, s.nextCheckAt),
    backingOff: s.backingOff,
    height: s.height ?? null,
    lagBlocks: s.lagBlocks ?? null,
    version: s.version ?? null,
    uptime,
    /** ms of each window its figure covers. */
    uptimeCovers,
    /** The 24 h figure in words, with the time it covers when under 24 h ("50.00% over 20 s"). */
    uptime24hText: uptimeText(uptime['24h'], uptimeCovers['24h'], UPTIME_WINDOWS['24h']),
    ...(recent > 0 ? { recent: board.history(s.name, recent).map((e) => pollJson(e, src)) } : {}),
  };
}

export type NodeRow = ReturnType<typeof nodeRow>;

export function summary(nodes: NodeStatus[]): Record<StatusKind, number> {
  const out: Record<StatusKind, number> = { up: 0, degraded: 0, down: 0, unknown: 0 };
  for (const n of nodes) out[n.status]++;
  return out;
}

/** One row of the fleet page's Networks table: how many of a network's nodes answer, and its highest block. */
export interface NetworkRow {
  network: string;
  /** Nodes up or degraded. */
  answering: number;
  degraded: number;
  down: number;
  total: number;
  highestBlock: number | null;
}

export function networkRows(nodes: readonly NodeStatus[]): NetworkRow[] {
  const nets = new Map<string, NetworkRow>();
  for (const n of nodes) {
    let r = nets.get(n.network);
    if (!r)
      nets.set(
        n.network,
        (r = { network: n.network, answering: 0, degraded: 0, down: 0, total: 0, highestBlock: null }),
      );
    r.total++;
    if (n.status === 'up' || n.status === 'degraded') r.answering++;
    if (n.status === 'degraded') r.degraded++;
    else if (n.status === 'down') r.down++;
    if (n.height !== undefined) r.highestBlock = Math.max(r.highestBlock ?? 0, n.height);
  }
  return [...nets.values()].sort((a, b) => a.network.localeCompare(b.network));
}

function eventJson(e: StatusEvent, src: StatusSource) {
  return {
    at: shownTime(src, e.at)!,
    kind: e.kind,
    node: e.node ?? null,
    text: e.text,
    ...(e.changes === undefined
      ? {}
      : { changes: e.changes, firstAt: shownTime(src, e.firstAt) ?? undefined, spells: e.spells ?? null }),
  };
}

/**
 * A slice of the worst-first list. Rows are built for the slice only: a row with its recent polls
 * is ~2 KB of JSON (~4.6 KB of HTML), so a 10,000-node fleet in full is tens of MB per refresh.
 */
export interface NodeWindow {
  offset: number;
  limit: number;
}

export function nodesJson(src: StatusSource, recent: number, window?: NodeWindow) {
  const nodes = sortedNodes(src.board);
  const shown = window ? nodes.slice(window.offset, window.offset + window.limit) : nodes;
  const { alerts, pipelineAlive } = pageAlerts(src.activeAlerts?.());
  const watch = watchRows(src.watch?.(), src.toWall);
  const nodeCounts = summary(nodes);
  return {
    generatedAt: shownNow(src),
    updatedAt: shownTime(src, src.board.lastUpdate),
    refreshMs: src.refreshMs,
    summary: nodeCounts,
    /** What is wrong, counted: watched entries, firing alerts, nodes. */
    headline: headlineText(nodeCounts, watch, alerts),
    total: nodes.length,
    offset: window?.offset ?? 0,
    /** Rows per window; null when every node is listed. */
    limit: window && Number.isFinite(window.limit) ? window.limit : null,
    /** Worst first, without the Watchdog (see pipelineAlive). */
    alerts,
    pipelineAlive,
    notices: src.notices?.() ?? [],
    /** Every network of the fleet, whatever the window. */
    networks: networkRows(nodes),
    nodes: shown.map((n) => nodeRow(src, n, recent)),
    events: src.board.recentEvents(20).map((e) => eventJson(e, src)),
    /** Watched entries (all of them, whatever the window) with their state in words. */
    watch,
  };
}

export function nodeJson(src: StatusSource, name: string) {
  const s = src.board.node(name);
  if (!s) return undefined;
  const row = nodeRow(src, s, 100);
  return {
    generatedAt: shownNow(src),
    refreshMs: src.refreshMs,
    node: {
      ...row,
      uptimeText: uptimeWords(row.uptime, row.uptimeCovers),
      labels: s.labels,
      namespace: s.namespace ?? null,
      peers: s.peers ?? null,
      blockAgeSecs: s.blockAgeSecs ?? null,
      probes: s.probes.map((p) => ({
        probe: p.probe,
        outcome: p.outcome,
        text: p.text,
        supported: p.outcome !== 'unsupported',
        lastRun: shownTime(src, p.lastRunAt),
        durationMs: p.durationMs ?? null,
        lastSuccess: shownTime(src, p.lastSuccessAt),
        consecutiveFailures: p.consecutiveFailures,
        backingOff: p.backingOff,
        nextCheck: shownTime(src, p.nextCheckAt),
      })),
    },
    events: src.board.recentEvents(20, name).map((e) => eventJson(e, src)),
  };
}
