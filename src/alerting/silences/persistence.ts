// Keeps the silence file in step with the store: one write at a time, each writing the newest
// silences; a failed write is retried with backoff until one succeeds, and the failure is shown
// (problems(): /readyz, the status page) until then. A write asked for while one runs is folded
// into the next, so a burst of changes costs two writes, not one each.
import type { Logger } from '../../logger.js';
import type { Secrets } from '../../redact.js';
import { saveSilences } from './silenceFile.js';
import type { Silence } from './types.js';

export const RETRY_FIRST_MS = 1_000;
export const RETRY_MAX_MS = 60_000;

export interface SilencePersistenceDeps {
  stateDir(): string;
  silences(): readonly Silence[];
  wallNow(): number;
  logger: Logger;
  secrets: Secrets;
  retryFirstMs?: number;
}

export class SilencePersistence {
  failures = 0;
  private problem: { message: string; since: number } | undefined;
  private chain: Promise<void> = Promise.resolve();
  /** A write queued and not started yet: callers meanwhile share it (it writes the newest silences). */
  private queued: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private delay: number;
  private stopped = false;

  constructor(private readonly deps: SilencePersistenceDeps) {
    this.delay = deps.retryFirstMs ?? RETRY_FIRST_MS;
  }

  /** Resolves once a write that started after this call was tried (succeeded or failed). */
  save(): Promise<void> {
    if (this.queued) return this.queued;
    const run = this.chain.then(() => {
      this.queued = undefined;
      return this.writeOnce();
    });
    this.queued = run;
    this.chain = run;
    return run;
  }

  private async writeOnce(): Promise<void> {
    const { logger } = this.deps;
    try {
      await saveSilences(this.deps.stateDir(), this.deps.silences(), this.deps.wallNow());
      if (this.problem) logger.info({ component: 'silences', failures: this.failures }, 'silences written again');
      this.problem = undefined;
      this.delay = this.deps.retryFirstMs ?? RETRY_FIRST_MS;
    } catch (err) {
      this.failures++;
      const message = this.deps.secrets.scrub((err as Error).message);
      if (!this.problem)
        logger.error({ component: 'silences' }, `cannot write silences: ${message}; retrying until it succeeds`);
      this.problem = { message, since: this.deps.wallNow() };
      this.armRetry();
    }
  }

  private armRetry(): void {
    if (this.stopped || this.retryTimer) return;
    const delay = this.delay;
    this.delay = Math.min(delay * 2, RETRY_MAX_MS);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.save();
    }, delay);
    this.retryTimer.unref();
  }

  problems(): string[] {
    const p = this.problem;
    if (!p) return [];
    const since = new Date(p.since).toISOString();
    return [`silences not written since ${since} (${this.failures} failed writes, retrying): ${p.message}`];
  }

  /** No more retries; what is wanted written is the caller's last save(). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }
}
