// One bounded queue and one worker per receiver: a receiver that hangs or fails delays only its
// own notifications. Failed sends are retried with exponential backoff and jitter (or the
// receiver's Retry-After), a bounded number of times, then reported once as failed.
import type { Notification } from './notification.js';
import type { DeliveryOutcome, DeliveryPart } from '../receivers/kind.js';

export type { DeliveryOutcome, DeliveryPart };

/** Delivers one part once, whatever carries it (HTTP, SMTP, ...); the queue retries. */
export type SendFn = (part: DeliveryPart) => Promise<DeliveryOutcome>;

export interface DeliveryReport {
  receiver: string;
  notification: Notification;
  result: 'success' | 'failure' | 'dropped';
  attempts: number;
  /** ms from the first attempt to the outcome */
  durationMs: number;
  status?: number;
  message?: string;
}

export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is cut to it (the queue must keep moving). */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 1_000,
  maxDelayMs: 60_000,
  maxRetryAfterMs: 300_000,
};

export interface QueueOptions {
  receiver: string;
  send: SendFn;
  capacity?: number;
  retry?: RetryPolicy;
  /** Resolves after `ms`, or early when `signal` aborts. */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  now: () => number;
  random?: () => number;
  onReport: (r: DeliveryReport) => void;
}

interface Item {
  notification: Notification;
  parts: DeliveryPart[];
}

/** Backoff before attempt `attempt + 1`: base * 2^(attempt-1), capped, scaled into [50%, 100%]. */
export function backoffMs(attempt: number, policy: RetryPolicy, random: () => number): number {
  const raw = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(raw * (0.5 + random() / 2));
}

export class ReceiverQueue {
  private readonly items: Item[] = [];
  private running = false;
  private readonly stop = new AbortController();
  /** Aborted by drain(): no new work, no more retries; the attempt in flight may still finish. */
  private readonly closing = new AbortController();
  private inFlight: Item | undefined;
  /** Deliveries cut short by a shutdown: neither delivered nor failed. */
  private readonly interrupted: Notification[] = [];
  private worker: Promise<void> = Promise.resolve();

  constructor(private readonly opts: QueueOptions) {}

  get length(): number {
    return this.items.length + (this.inFlight ? 1 : 0);
  }

  enqueue(notification: Notification, parts: DeliveryPart[]): void {
    if (this.closing.signal.aborted || this.stop.signal.aborted) return;
    if (this.items.length >= (this.opts.capacity ?? 100)) {
      // Oldest first out: the newest state of a group matters most.
      const dropped = this.items.shift()!;
      this.opts.onReport({
        receiver: this.opts.receiver,
        notification: dropped.notification,
        result: 'dropped',
        attempts: 0,
        durationMs: 0,
        message: 'queue full',
      });
    }
    this.items.push({ notification, parts });
    if (!this.running) this.worker = this.work();
  }

  /** Stops the worker at once; returns what was not delivered (queued, or in flight). */
  close(): Notification[] {
    this.stop.abort();
    this.closing.abort();
    return [
      ...this.interrupted.splice(0),
      ...(this.inFlight ? [this.inFlight.notification] : []),
      ...this.items.splice(0).map((i) => i.notification),
    ];
  }

  /**
   * Shutdown: takes no new work, gives the attempt in flight up to graceMs to finish (its outcome
   * is reported as usual, so a delivered notification is recorded as delivered), then stops.
   * Returns what was not delivered: queued, waiting for a retry, or still in flight.
   */
  async drain(graceMs: number): Promise<Notification[]> {
    this.closing.abort();
    const waiting = this.items.splice(0).map((i) => i.notification);
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([this.worker, bound]);
    clearTimeout(timer);
    return [...waiting, ...this.close()];
  }

  private async work(): Promise<void> {
    this.running = true;
    try {
      while (!this.stop.signal.aborted && this.items.length > 0) {
        const item = (this.inFlight = this.items.shift()!);
        const report = await this.deliver(item);
        this.inFlight = undefined;
        if (report) this.opts.onReport(report);
        else this.interrupted.push(item.notification);
      }
    } finally {
      this.running = false;
    }
  }

  private async deliver(item: Item): Promise<DeliveryReport | undefined> {
    const policy = this.opts.retry ?? DEFAULT_RETRY;
    const started = this.opts.now();
    let pending = item.parts;
    let last: DeliveryOutcome | undefined;
    let attempts = 0;
    for (let attempt = 1; attempt <= policy.maxAttempts; attempt++) {
      attempts = attempt;
      const outcomes = await Promise.all(
        pending.map((r) =>
          this.opts
            .send(r)
            .catch((e: unknown): DeliveryOutcome => ({ ok: false, retryable: true, message: String(e) })),
        ),
      );
      if (this.stop.signal.aborted) return undefined;
      const failed = outcomes.map((o, i) => ({ o, r: pending[i]! })).filter(({ o }) => !o.ok);
      const base = {
        receiver: this.opts.receiver,
        notification: item.notification,
        attempts: attempt,
        durationMs: this.opts.now() - started,
      };
      if (failed.length === 0) return { ...base, result: 'success', status: outcomes[0]?.status };
      last = failed[0]!.o;
      if (!failed.every(({ o }) => o.retryable) || attempt === policy.maxAttempts) break;
      // Shutting down: the retry is left to the next start (the dispatcher forgets this send).
      if (this.closing.signal.aborted) return undefined;
      pending = failed.map(({ r }) => r);
      const wait =
        last.retryAfterMs !== undefined
          ? Math.min(last.retryAfterMs, policy.maxRetryAfterMs)
          : backoffMs(attempt, policy, this.opts.random ?? Math.random);
      await this.opts.sleep(wait, this.closing.signal);
      if (this.closing.signal.aborted) return undefined;
    }
    return {
      receiver: this.opts.receiver,
      notification: item.notification,
      result: 'failure',
      attempts,
      durationMs: this.opts.now() - started,
      status: last?.status,
      message: last?.message,
    };
  }
}
