// Interval scheduling of probes. Each node ticks on its own interval at a stable phase hashed
// from its name, so a large fleet never fires at once and restarts and reloads keep the phase
// (the grid is anchored on the clock, as Prometheus anchors its scrape offsets). Phases are
// rounded to slots of at most 1 s (at least eight per interval) and one timer fires a slot's
// nodes together: spread over the interval, but the event loop wakes once per slot, not once
// per node, and a burst's answers are read in few wake-ups. A loop polling 1,000 nodes at 15 s
// spent 1.23 ms of CPU per node-poll paced node by node and 0.51 ms in 250 ms slots (the
// floor of bench/floor.ts, paced); the exporter itself at 1,000 nodes / 15 s, 1 s slots against
// 250 ms, ran at 0.82-0.92x the CPU (three runs side by side); 2 s slots measured no better.
// A tick runs the node's due probes in sequence as one task; when the node's previous task is
// still running, each due probe is skipped. A global bound caps the tasks (so the requests) in
// flight. A skip counts as an overrun (the exporter cannot keep up) only while the previous task
// still waits for a place under that bound: a task that holds its place is waiting on its node,
// and a node whose requests time out is that node's problem (LedgerNodeDown), not the exporter's.
//
// The grid runs on the monotonic clock (clock/clock.ts): a step of the wall clock, back or forward,
// neither pauses polling nor bunches ticks up.
//
// Why not node-cron or croner: they fire on wall-clock second boundaries, so every node with the
// same interval would fire in the same second (the opposite of spreading), and they cannot express
// the sub-second intervals the config allows (500ms).
import { SYSTEM_CLOCK, type Clock } from '../clock/clock.js';
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
  /**
   * Whether the probe should run at this tick (not backing off, not a rarely re-checked unsupported one); `now` is
   * monotonic.
   */
  isDue(target: NodeTarget, probe: ProbeName, now: number): boolean;
  /** A due probe skipped because the node's previous task still waits for a place (the exporter is behind). */
  onOverrun(target: NodeTarget, probe: ProbeName): void;
  /** Only its monotonic side is read. */
  clock?: Clock;
  timers?: Timers;
}

export interface SchedulerStats {
  nodes: number;
  inFlight: number;
  queued: number;
  /** Actual minus scheduled start of ticks. */
  lateness: LatenessSummary;
}

/** A FIFO semaphore: at most `limit` holders at once. */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  /** Takes a place when one is free at once (no promise, no turn); false when the caller must wait(). */
  tryTake(): boolean {
    if (this.active >= this.limit || this.waiting.length > 0) return false;
    this.active++;
    return true;
  }

  /** Resolves when a place is taken, in the order callers asked. */
  take(): Promise<void> {
    if (this.tryTake()) return Promise.resolve();
    return new Promise<void>((resolve) =>
      this.waiting.push(() => {
        this.active++;
        resolve();
      }),
    );
  }

  /** Gives a place back; the longest waiting caller takes it. */
  give(): void {
    this.active--;
    this.waiting.shift()?.();
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (!this.tryTake()) await this.take();
    try {
      return await task();
    } finally {
      this.give();
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

/** Longest slot: a node's tick is at most this much earlier than its hashed offset. */
export const MAX_SLOT_MS = 1_000;

/** Slot length for an interval: at most MAX_SLOT_MS, and at least eight slots per interval. */
export function slotMs(intervalMs: number): number {
  return Math.max(1, Math.min(MAX_SLOT_MS, Math.floor(intervalMs / 8)));
}

/** The node's phase on the clock: its offset rounded down to its slot. Ticks at k * interval + phase. */
export function tickPhase(name: string, intervalMs: number): number {
  const slot = slotMs(intervalMs);
  return Math.floor(startOffset(name, intervalMs) / slot) * slot;
}

/** The nodes that tick together: one interval, one phase, one timer. */
interface Slot {
  key: string;
  intervalMs: number;
  phase: number;
  nodes: Map<string, NodeTarget>;
  timer?: unknown;
}

export class Scheduler {
  private readonly slots = new Map<string, Slot>();
  /** Node name -> its slot. */
  private readonly slotOf = new Map<string, Slot>();
  private readonly busy = new Set<string>();
  /** Busy nodes whose task still waits for a place under the concurrency bound. */
  private readonly queued = new Set<string>();
  /** Node-polls started and not finished; stop() waits for them through `drained`. */
  private inflight = 0;
  private readonly drained: Array<() => void> = [];
  private readonly sem: Semaphore;
  private readonly now: () => number;
  private readonly timersApi: Timers;
  private readonly late = new LatenessWindow();
  private running = false;

  constructor(private readonly deps: SchedulerDeps) {
    this.sem = new Semaphore(deps.concurrency);
    const clock = deps.clock ?? SYSTEM_CLOCK;
    this.now = () => clock.mono();
    this.timersApi = deps.timers ?? realTimers;
  }

  start(targets: NodeTarget[]): void {
    this.running = true;
    this.setTargets(targets);
  }

  /** Applies a new node list: kept nodes keep their phase (a new interval means a new grid), removed ones stop. */
  setTargets(targets: NodeTarget[]): void {
    const keep = new Set(targets.map((t) => t.name));
    for (const name of [...this.slotOf.keys()]) if (!keep.has(name)) this.leave(name);
    if (!this.running) return;
    for (const target of targets) {
      const old = this.slotOf.get(target.name);
      if (old && old.intervalMs === target.intervalMs) {
        old.nodes.set(target.name, target);
        continue;
      }
      if (old) this.leave(target.name);
      this.join(target);
    }
  }

  private join(target: NodeTarget): void {
    const phase = tickPhase(target.name, target.intervalMs);
    const key = `${target.intervalMs}/${phase}`;
    let slot = this.slots.get(key);
    if (!slot) {
      slot = { key, intervalMs: target.intervalMs, phase, nodes: new Map() };
      this.slots.set(key, slot);
      this.arm(slot);
    }
    slot.nodes.set(target.name, target);
    this.slotOf.set(target.name, slot);
  }

  private leave(name: string): void {
    const slot = this.slotOf.get(name);
    this.slotOf.delete(name);
    if (!slot) return;
    slot.nodes.delete(name);
    if (slot.nodes.size > 0) return;
    this.timersApi.clear(slot.timer);
    this.slots.delete(slot.key);
  }

  /** Arms the slot's timer for its first grid point at or after now, and after `fired` if given. */
  private arm(slot: Slot, fired?: number): void {
    // Grid points already past (the event loop was blocked) are skipped, not fired one after
    // another: one late tick, then back on the grid.
    const now = this.now();
    const { intervalMs: interval, phase } = slot;
    let at = phase + Math.ceil((now - phase) / interval) * interval;
    if (fired !== undefined && at <= fired) at = fired + interval;
    slot.timer = this.timersApi.set(() => this.fire(slot, at), Math.max(0, at - now));
  }

  private fire(slot: Slot, scheduledAt: number): void {
    if (!this.running || this.slots.get(slot.key) !== slot) return;
    this.arm(slot, scheduledAt);
    for (const target of slot.nodes.values()) this.tick(target, scheduledAt);
  }

  private tick(target: NodeTarget, scheduledAt: number): void {
    const now = this.now();
    this.late.record(now - scheduledAt);
    let due: ProbeName[] | undefined;
    for (const probe of target.probes) if (this.deps.isDue(target, probe, now)) (due ??= []).push(probe);
    if (due === undefined) return;
    if (this.busy.has(target.name)) {
      if (this.queued.has(target.name)) for (const probe of due) this.deps.onOverrun(target, probe);
      return;
    }
    this.busy.add(target.name);
    this.inflight++;
    void this.poll(target, due);
  }

  /**
   * One node-poll is one task: its probes go one after another, so a node is sent one request at
   * a time (one socket, see http/dispatcher.ts) and each request's deadline starts when it is
   * sent, not while it waits behind the node's other probes. One async function per poll (no
   * task closure, no promise chain around it): it runs a thousand times a second at fleet scale.
   */
  private async poll(target: NodeTarget, due: ProbeName[]): Promise<void> {
    const sem = this.sem;
    try {
      if (!sem.tryTake()) {
        this.queued.add(target.name);
        await sem.take();
        this.queued.delete(target.name);
      }
      try {
        for (const probe of due) {
          if (!this.running) break;
          try {
            await this.deps.runProbe(target, probe);
          } catch {
            // runProbe records its own failures; one that escapes must not stop the node's others.
          }
        }
      } finally {
        sem.give();
      }
    } finally {
      this.busy.delete(target.name);
      if (--this.inflight === 0 && this.drained.length > 0) for (const done of this.drained.splice(0)) done();
    }
  }

  /** Stops scheduling; waits up to `graceMs` for probes in flight. Resolves true if all finished. */
  async stop(graceMs = 5_000): Promise<boolean> {
    this.running = false;
    for (const slot of this.slots.values()) this.timersApi.clear(slot.timer);
    this.slots.clear();
    this.slotOf.clear();
    if (this.inflight === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const finished = await new Promise<boolean>((resolve) => {
      this.drained.push(() => resolve(true));
      timer = setTimeout(() => resolve(false), graceMs);
    });
    clearTimeout(timer);
    return finished;
  }

  stats(): SchedulerStats {
    return {
      nodes: this.slotOf.size,
      inFlight: this.sem.inFlight,
      queued: this.sem.queued,
      lateness: this.late.summary(),
    };
  }

  /** Starts the lateness figures afresh (after a warm-up). */
  resetLateness(): void {
    this.late.reset();
  }
}
