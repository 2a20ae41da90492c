// Runs the status board for the daemon: refreshes it shortly after probe results (debounced, so a
// large fleet costs a bounded share of CPU), keeps it fresh on a slow timer, and keeps its history
// in the status file (loaded at start, saved every minute and at shutdown). The board runs on the
// monotonic clock; the times the pages show and the file keeps are wall times, turned here.
import { dirname, join, resolve } from 'node:path';
import { fromWall, SYSTEM_CLOCK, toWall, wallOffset, type Clock } from '../clock/clock.js';
import { setAside } from '../files/setAside.js';
import type { ProbeResult } from '../domain.js';
import type { Logger } from '../logger.js';
import type { StatusSource } from './api.js';
import { StatusBoard, type BoardFleet } from './board.js';
import { loadStatusFile, mapStatusFileTimes, writeStatusFile, type FileTimes } from './persist.js';
import type { AlertView } from './types.js';
import type { WatchSnapshot } from '../watch/types.js';

export interface StatusServiceOptions {
  logger: Logger;
  /** The fleet state the board reads (each node's revision tells it what changed). */
  fleet: () => BoardFleet;
  /** Shortest node interval now configured: pages refresh four times per interval (every 1-5 s). */
  minIntervalMs: () => number;
  activeAlerts?: () => AlertView[] | undefined;
  /** The watched entries of the current snapshot (FleetSnapshot.watch). */
  watch?: () => WatchSnapshot | undefined;
  notices?: () => string[];
  /**
   * The clock pair the node state is kept on, asked at each use (the daemon's is known once it
   * starts); default the system's. Its wall clock labels the times shown and saved.
   */
  clockPair?: () => Clock;
  /**
   * Monotonic time on the epoch scale (default the clock pair's): statuses, block ages and the
   * update schedule are measured on it, so a wall-clock step neither freezes the page nor marks
   * nodes stalled.
   */
  now?: () => number;
  /** Monotonic ms, to measure what an update costs (default performance.now). */
  clock?: () => number;
  saveEveryMs?: number;
}

/** The history file lives beside the evidence directory (both are the exporter's local state). */
export function statusFileFor(evidenceDir: string): string {
  return join(dirname(resolve(evidenceDir)), 'status-history.json');
}

const MIN_GAP_MS = 250;
/** Even when an update is costly (very large fleets on a busy host), the page lags at most this much. */
const MAX_GAP_MS = 10_000;
const FRESH_EVERY_MS = 5_000;
/**
 * A node's probes run one after another, within a few ms of each other: an update this long after
 * the result that made the board dirty sees the rounds that result belongs to finished. At once,
 * it would derive many nodes of a scheduler slot twice (half-polled, then again): 1.4 derives per
 * node-poll for new results at 1,000 nodes / 15 s, 1.0 with the wait. The metrics view batches
 * for the same reason and as long (metrics/view.ts).
 */
export const ROUND_SETTLE_MS = 200;

export class StatusService {
  readonly board: StatusBoard;
  private readonly now: () => number;
  private readonly pair: () => Clock;
  private pending: NodeJS.Timeout | undefined;
  private readonly timers: NodeJS.Timeout[] = [];
  private lastRun = 0;
  private lastCost = 0;
  private savedRevision = -1;
  private saving: Promise<void> | undefined;
  private closed = false;
  private dirty = false;
  /** The history file; none: history lives in memory only. */
  private file: string | undefined;

  constructor(private readonly opts: StatusServiceOptions) {
    const pair = (this.pair = opts.clockPair ?? (() => SYSTEM_CLOCK));
    this.now = opts.now ?? (() => pair().mono());
    this.board = new StatusBoard({ now: this.now, logger: opts.logger });
  }

  /** Loads the history file; a damaged one is moved aside (kept for inspection) and history starts empty. */
  async open(file?: string): Promise<void> {
    this.file = file;
    if (file) {
      try {
        const data = await loadStatusFile(file);
        if (data) this.board.restore(mapStatusFileTimes(data, this.fileTimes('load')));
      } catch (err) {
        const aside = await setAside(file, this.pair().wall()).catch(() => undefined);
        const why = (err as Error).message;
        this.opts.logger.warn(
          { err: why, file, keptAs: aside },
          `status history file unreadable (${why}): ${aside ? `kept as ${aside}` : 'could not be set aside'}, ` +
            `starting with empty history`,
        );
      }
    }
    // Time alone changes some statuses (a held change taken, a backoff ending, a stall): look at
    // least this often, within the same cost-based gap as after results.
    this.timers.push(setInterval(() => this.schedule(), FRESH_EVERY_MS));
    if (file) this.timers.push(setInterval(() => void this.save(), this.opts.saveEveryMs ?? 60_000));
    for (const t of this.timers) t.unref();
  }

  noteResult(node: string, result: ProbeResult): void {
    this.board.noteResult(node, result);
    this.dirty = true;
    this.schedule(ROUND_SETTLE_MS);
  }

  /** Before answering a request: takes in results that arrived since the last update (same rate bound). */
  freshen(): void {
    if (this.dirty && this.now() - this.lastRun >= this.gap()) this.refresh();
  }

  /** Updates soon: at most every 50 x the last update's cost (~2% of a core), 250 ms to 10 s apart. */
  private gap(): number {
    return Math.min(MAX_GAP_MS, Math.max(MIN_GAP_MS, 50 * this.lastCost));
  }

  /** Arms the next update: the cost-based gap after the last one, and at least `atLeastMs` from now. */
  private schedule(atLeastMs = 0): void {
    if (this.pending || this.closed) return;
    const gap = this.gap();
    const wait = Math.max(atLeastMs, this.lastRun + gap - this.now());
    this.pending = setTimeout(() => {
      this.pending = undefined;
      this.refresh();
    }, wait);
    this.pending.unref();
  }

  refresh(): void {
    const clock = this.opts.clock ?? (() => performance.now());
    const t0 = clock();
    this.dirty = false;
    this.board.update(this.opts.fleet());
    this.lastCost = clock() - t0;
    this.lastRun = this.now();
  }

  /** The file's times are wall times (toWall), read back monotonic (fromWall: none after now). */
  private fileTimes(way: 'save' | 'load'): FileTimes {
    const clock = this.pair();
    const lead = wallOffset(clock);
    return way === 'save'
      ? { map: (t) => toWall(clock, t), shiftMs: lead }
      : { map: (t) => fromWall(clock, t), shiftMs: -lead };
  }

  source(): StatusSource {
    return {
      board: this.board,
      now: this.now,
      toWall: (t) => toWall(this.pair(), t),
      refreshMs: Math.min(5_000, Math.max(1_000, Math.round(this.opts.minIntervalMs() / 4))),
      activeAlerts: this.opts.activeAlerts,
      watch: this.opts.watch,
      notices: this.opts.notices,
    };
  }

  private async save(): Promise<void> {
    const file = this.file;
    if (!file || this.saving || this.board.revision === this.savedRevision) return this.saving;
    const revision = this.board.revision;
    this.saving = writeStatusFile(file, this.board.toFile(), this.pair().wall(), this.fileTimes('save'))
      .then(() => {
        this.savedRevision = revision;
      })
      .catch((err: NodeJS.ErrnoException) =>
        this.opts.logger.warn({ code: err.code, file }, `status history not saved: ${err.code ?? err.message}`),
      )
      .finally(() => {
        this.saving = undefined;
      });
    return this.saving;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.pending);
    for (const t of this.timers) clearInterval(t);
    this.refresh();
    await this.saving;
    await this.save();
  }
}
