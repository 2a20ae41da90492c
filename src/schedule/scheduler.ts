// Interval scheduling of probes. Each node ticks on its own interval from a start offset spread
// over that interval (hashed from its name, so a large fleet never fires at once and restarts
// keep the same phase). A tick runs the node's due probes in sequence as one task; when the
// node's previous task is still queued or in flight, each due probe is skipped and counted as an
// overrun. A global bound caps the tasks (so the requests) in flight.
//
// Why not node-cron or croner: they fire on wall-clock second boundaries, so every node with the
// same interval would fire in the same second (the opposite of spreading), and they cannot express
// the sub-second intervals the config allows (500ms).
import type { NodeTarget, ProbeName } from '../domain.js';
import { LatenessWindow, type LatenessSummary } from './lateness.js';

/** Timer functions, injectable so tests drive time themselves. */
export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const realTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout | undefined),
};

export interface SchedulerDeps {
  concurrency: number;
  /** Runs one probe end to end (request, state update, evidence). Should not throw. */
  runProbe(target: NodeTarget, probe: ProbeName): Promise<void>;
  /** Whether the probe should run at this tick (not backing off, not a rarely re-checked unsupported one). */
  isDue(target: NodeTarget, probe: ProbeName, now: number): boolean;
  onOverrun(target: NodeTarget, probe: ProbeName): void;
  now?: () => number;
  timers?: Timers;
}

export interface SchedulerStats {
  nodes: number;
  inFlight: number;
  queued: number;
  /** Actual minus scheduled start of ticks. */
  lateness: LatenessSummary;
}

/** A FIFO semaphore: at most `limit` tasks run at once. */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }

  get inFlight(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }
}

/** Stable offset in [0, interval) from the node name (FNV-1a). */
export function startOffset(name: string, intervalMs: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % Math.max(1, Math.floor(intervalMs));
}

interface NodeTimer {
  target: NodeTarget;
  timer?: unknown;
  firstAt: number;
  /** Index of the next tick on the grid firstAt + k * interval. */
  ticks: number;
}

export class Scheduler {
  private readonly timers = new Map<string, NodeTimer>();
  private readonly busy = new Set<string>();
  private readonly inflight = new Set<Promise<void>>();
  private readonly sem: Semaphore;
  private readonly now: () => number;
  private readonly timersApi: Timers;
  private readonly late = new LatenessWindow();
  private running = false;

  constructor(private readonly deps: SchedulerDeps) {
    this.sem = new Semaphore(deps.concurrency);
    this.now = deps.now ?? Date.now;
    this.timersApi = deps.timers ?? realTimers;
  }

  start(targets: NodeTarget[]): void {
    this.running = true;
    this.setTargets(targets);
  }

  /** Applies a new node list: unchanged nodes keep their phase, removed ones stop. */
  setTargets(targets: NodeTarget[]): void {
    const keep = new Set(targets.map((t) => t.name));
    for (const [name, t] of this.timers) {
      if (!keep.has(name)) {
        this.timersApi.clear(t.timer);
        this.timers.delete(name);
      }
    }
    if (!this.running) return;
    for (const target of targets) {
      const old = this.timers.get(target.name);
      if (old && old.target.intervalMs === target.intervalMs) {
        old.target = target;
        continue;
      }
      if (old) this.timersApi.clear(old.timer);
      const t: NodeTimer = { target, firstAt: this.now() + startOffset(target.name, target.intervalMs), ticks: 0 };
      this.timers.set(target.name, t);
      this.arm(t);
    }
  }

  private arm(t: NodeTimer): void {
    // Next tick on the grid firstAt + k*interval. Grid points already past (the event loop was
    // blocked) are skipped, not fired one after another: one late tick, then back on the grid.
    const now = this.now();
    const interval = t.target.intervalMs;
    if (t.firstAt + t.ticks * interval <= now && t.ticks > 0) t.ticks = Math.floor((now - t.firstAt) / interval) + 1;
    const at = t.firstAt + t.ticks * interval;
    t.timer = this.timersApi.set(() => this.tick(t, at), Math.max(0, at - now));
  }

  private tick(t: NodeTimer, scheduledAt: number): void {
    if (!this.running || this.timers.get(t.target.name) !== t) return;
    const now = this.now();
    this.late.record(now - scheduledAt);
    t.ticks++;
    this.arm(t);
    const target = t.target;
    const due = target.probes.filter((probe) => this.deps.isDue(target, probe, now));
    if (due.length === 0) return;
    if (this.busy.has(target.name)) {
      for (const probe of due) this.deps.onOverrun(target, probe);
      return;
    }
    this.busy.add(target.name);
    // One node-poll is one task: its probes go one after another, so a node is sent one request
    // at a time (one socket, see http/dispatcher.ts) and each request's deadline starts when it
    // is sent, not while it waits behind the node's other probes.
    const p = this.sem
      .run(async () => {
        for (const probe of due) {
          if (!this.running) break;
          try {
            await this.deps.runProbe(target, probe);
          } catch {
            // runProbe records its own failures; one that escapes must not stop the node's others.
          }
        }
      })
      .catch(() => undefined)
      .finally(() => {
        this.busy.delete(target.name);
        this.inflight.delete(p);
      });
    this.inflight.add(p);
  }

  /** Stops scheduling; waits up to `graceMs` for probes in flight. Resolves true if all finished. */
  async stop(graceMs = 5_000): Promise<boolean> {
    this.running = false;
    for (const t of this.timers.values()) this.timersApi.clear(t.timer);
    this.timers.clear();
    if (this.inflight.size === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), graceMs);
    });
    const done = Promise.allSettled([...this.inflight]).then(() => true as const);
    const finished = await Promise.race([done, timeout]);
    clearTimeout(timer);
    return finished;
  }

  stats(): SchedulerStats {
    return { nodes: this.timers.size, inFlight: this.sem.inFlight, queued: this.sem.queued, lateness: this.late.summary() };
  }

  /** Starts the lateness figures afresh (after a warm-up). */
  resetLateness(): void {
    this.late.reset();
  }
}
