// Deadlines of HTTP exchanges without a timer per exchange. A fleet sends thousands of requests a
// second and nearly all of them end long before their deadline: a Node timer each (set, then
// cleared) cost a Timeout object and two timer-list updates per request. Deadlines of one length
// expire in the order they started, so each length keeps a queue in start order and one timer,
// armed for its earliest pending deadline. Ending a deadline only empties its queue slot; the
// timer skips empty slots when it fires.

/** The clock and timers the queue uses; injected so tests drive time themselves. */
export interface DeadlineClock {
  /** Monotonic milliseconds. */
  now(): number;
  set(fn: () => void, ms: number): DeadlineTimer;
  clear(timer: DeadlineTimer): void;
}

/** A timer handle; ref and unref say whether a pending deadline keeps the process alive. */
export interface DeadlineTimer {
  ref?(): unknown;
  unref?(): unknown;
}

export const realDeadlineClock: DeadlineClock = {
  now: () => performance.now(),
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (timer) => clearTimeout(timer as NodeJS.Timeout),
};

/** What a deadline tells when its time is up (the exchange it watches). */
export interface DeadlineWatcher {
  deadlinePassed(): void;
}

/** One exchange's deadline (across redirect hops and a resend); clear() it when the exchange ends. */
export class Deadline {
  passed = false;
  /** @internal set by the queue */
  watcher: DeadlineWatcher | undefined;

  constructor(
    private readonly queue: DeadlineQueue,
    /** @internal position in the queue */
    readonly seq: number,
  ) {}

  watch(w: DeadlineWatcher | undefined): void {
    this.watcher = w;
  }

  /** @internal called by the queue */
  pass(): void {
    this.passed = true;
    this.watcher?.deadlinePassed();
  }

  clear(): void {
    this.watcher = undefined;
    this.queue.drop(this);
  }
}

/** The deadlines of one length, in start order (so in expiry order), and the one timer for them. */
class DeadlineQueue {
  private readonly items: Array<Deadline | undefined> = [];
  private readonly ats: number[] = [];
  private head = 0;
  /** Sequence number of items[0]. */
  private base = 0;
  private pending = 0;
  private timer: DeadlineTimer | undefined;
  private timerAt = Infinity;
  private readonly onTimer = () => this.fire();

  constructor(
    private readonly ms: number,
    private readonly clock: DeadlineClock,
  ) {}

  add(now: number): Deadline {
    const d = new Deadline(this, this.base + this.items.length);
    this.items.push(d);
    this.ats.push(now + this.ms);
    if (this.pending++ === 0) this.timer?.ref?.();
    if (this.timer === undefined) this.arm(now + this.ms, now);
    return d;
  }

  drop(d: Deadline): void {
    const i = d.seq - this.base;
    if (i < this.head || this.items[i] !== d) return;
    this.items[i] = undefined;
    // Nothing pending: the armed timer must not keep the process alive on its own.
    if (--this.pending === 0) this.timer?.unref?.();
  }

  /** Deadlines in the queue that were neither passed nor cleared. */
  get size(): number {
    return this.pending;
  }

  private arm(at: number, now: number): void {
    this.timerAt = at;
    this.timer = this.clock.set(this.onTimer, Math.max(1, Math.ceil(at - now)));
    if (this.pending === 0) this.timer.unref?.();
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = this.clock.now();
    const { items, ats } = this;
    while (this.head < items.length) {
      const d = items[this.head];
      if (d !== undefined) {
        if (ats[this.head]! > now) break;
        items[this.head] = undefined;
        this.pending--;
        d.pass();
      }
      this.head++;
    }
    this.compact();
    if (this.head < items.length) this.arm(ats[this.head]!, now);
  }

  /** Drops the slots before the head once they are most of the arrays. */
  private compact(): void {
    if (this.head === this.items.length) {
      this.base += this.head;
      this.items.length = 0;
      this.ats.length = 0;
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.base += this.head;
      this.items.splice(0, this.head);
      this.ats.splice(0, this.head);
      this.head = 0;
    }
  }

  /** The earliest time the timer fires (Infinity: none armed), for tests. */
  get armedFor(): number {
    return this.timerAt;
  }
}

/** Deadlines by length; each length has one queue and at most one timer. */
export class Deadlines {
  private readonly queues = new Map<number, DeadlineQueue>();

  constructor(private readonly clock: DeadlineClock = realDeadlineClock) {}

  /** Starts a deadline `ms` from `now` (default: the clock's now). */
  start(ms: number, now = this.clock.now()): Deadline {
    let q = this.queues.get(ms);
    if (!q) this.queues.set(ms, (q = new DeadlineQueue(ms, this.clock)));
    return q.add(now);
  }

  /** Deadlines started and neither passed nor cleared, over every length. */
  get pending(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.size;
    return n;
  }

  /** When the earliest timer fires (Infinity: none armed), for tests. */
  get nextTimer(): number {
    let at = Infinity;
    for (const q of this.queues.values()) at = Math.min(at, q.armedFor);
    return at;
  }
}
