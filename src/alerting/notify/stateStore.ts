// Keeps the alert state on disk (stateFile.ts holds the format). In memory every time is a
// monotonic reading (clock/clock.ts); the file holds wall-clock times, the only ones a later
// process can read, and loading turns them back, a time in the future (the writer's clock ran
// ahead) taken as now. A write that fails is retried with backoff until one succeeds, whether
// or not the state changes meanwhile; failures are counted and the last one is shown (/readyz,
// status page) until a write succeeds. A damaged file is set aside, never written over, and what
// it still proves is loaded (stateSalvage.ts).
import { join } from 'node:path';
import { fromWall, toWall, type Clock } from '../../clock/clock.js';
import { setAside } from '../../files/setAside.js';
import type { Logger } from '../../logger.js';
import type { Secrets } from '../../redact.js';
import type { DispatcherState } from './dispatcher.js';
import type { AlertInstance } from '../rules/instance.js';
import { ALERT_STATE_FILE, loadAlertState, saveAlertState, type AlertState } from './stateFile.js';
import { describeSalvage, salvageAlertState } from './stateSalvage.js';

export const RETRY_FIRST_MS = 1_000;
export const RETRY_MAX_MS = 60_000;

export interface StateStoreDeps {
  /** Asked at each write: a reload may move it. */
  stateDir(): string;
  clock: Clock;
  logger: Logger;
  secrets: Secrets;
  /** The state to write now (each retry writes the newest). */
  current(): AlertState;
  /** Told of each failed write (the failures counter outlives a rebuilt runtime). */
  onWriteFailure?: () => void;
  retryFirstMs?: number;
  retryMaxMs?: number;
}

/** Maps every time of a state (instances and notification log); 0 marks "never told" and stays. */
export function mapStateTimes(s: AlertState, f: (t: number) => number): AlertState {
  const g = (t: number) => (t === 0 ? 0 : f(t));
  const opt = (t: number | undefined) => (t === undefined ? undefined : g(t));
  const instances: AlertInstance[] = s.instances.map((i) => ({
    ...i,
    activeAt: g(i.activeAt),
    ...(i.firingSince !== undefined ? { firingSince: opt(i.firingSince) } : {}),
    ...(i.resolvedAt !== undefined ? { resolvedAt: opt(i.resolvedAt) } : {}),
    ...(i.keepFiringSince !== undefined ? { keepFiringSince: opt(i.keepFiringSince) } : {}),
  }));
  const at = <T extends { at: number }>(rec: Record<string, T>) =>
    Object.fromEntries(Object.entries(rec).map(([k, v]) => [k, { ...v, at: g(v.at) }]));
  const d = s.dispatcher;
  const dispatcher: DispatcherState = {
    log: at(d.log),
    pushed: at(d.pushed),
    ...(d.unconfirmed ? { unconfirmed: at(d.unconfirmed) } : {}),
  };
  return { instances, dispatcher, ...(s.savedAt !== undefined ? { savedAt: s.savedAt } : {}) };
}

export class AlertStateStore {
  /** Writes that failed since start (ledger_alert_state_write_failures_total). */
  failures = 0;
  /** The last failure while writes fail; undefined once one succeeds. */
  problem: { message: string; since: number } | undefined;
  private chain: Promise<void> = Promise.resolve();
  private retryTimer: NodeJS.Timeout | undefined;
  private retryDelay: number;
  private stopped = false;

  constructor(private readonly deps: StateStoreDeps) {
    this.retryDelay = deps.retryFirstMs ?? RETRY_FIRST_MS;
  }

  private get path(): string {
    return join(this.deps.stateDir(), ALERT_STATE_FILE);
  }

  /**
   * Reads the saved state, times turned monotonic. A damaged file is set aside, what it still
   * proves is loaded as a good file would be, and one line says what was kept and what was lost.
   */
  async load(): Promise<{ state?: AlertState; downMs: number }> {
    const { clock, logger } = this.deps;
    const loaded = await loadAlertState(this.deps.stateDir());
    let state = loaded.state;
    if (loaded.damaged) state = await this.salvage(loaded.damaged);
    else if (loaded.problem) logger.error({ component: 'alerting' }, loaded.problem);
    if (!state) return { downMs: 0 };
    return {
      state: mapStateTimes(state, (t) => fromWall(clock, t)),
      // Unknown save time: as if down for ever (a pending alert's `for` starts again).
      downMs: state.savedAt === undefined ? Infinity : Math.max(0, clock.wall() - state.savedAt),
    };
  }

  private async salvage(damaged: { why: string; text: string; mtimeMs?: number }): Promise<AlertState> {
    const { logger, secrets } = this.deps;
    const salvaged = salvageAlertState(damaged.text, damaged.mtimeMs);
    const fields = {
      component: 'alerting',
      file: this.path,
      recovered: salvaged.recovered,
      unproved: salvaged.unproved,
    };
    const said = `alert state file damaged (${damaged.why})`;
    try {
      const aside = await setAside(this.path, this.deps.clock.wall());
      logger.error(
        { ...fields, keptAs: aside },
        secrets.scrub(`${said}: kept as ${aside}; ${describeSalvage(salvaged)}`),
      );
    } catch (err) {
      const why = (err as Error).message;
      logger.error(fields, secrets.scrub(`${said} and could not be set aside (${why}); ${describeSalvage(salvaged)}`));
    }
    return salvaged.state;
  }

  /** Writes the current state (one write at a time); resolves once it was tried. */
  save(): Promise<void> {
    const run = this.chain.then(() => this.writeOnce());
    this.chain = run;
    return run;
  }

  private async writeOnce(): Promise<void> {
    const { clock } = this.deps;
    const state = mapStateTimes(this.deps.current(), (t) => toWall(clock, t));
    try {
      await saveAlertState(this.deps.stateDir(), state, clock.wall());
      if (this.problem)
        this.deps.logger.info({ component: 'alerting', failures: this.failures }, 'alert state written again');
      this.problem = undefined;
      this.retryDelay = this.deps.retryFirstMs ?? RETRY_FIRST_MS;
      clearTimeout(this.retryTimer);
      this.retryTimer = undefined;
    } catch (err) {
      this.failures++;
      this.deps.onWriteFailure?.();
      const message = this.deps.secrets.scrub((err as Error).message);
      if (!this.problem)
        this.deps.logger.error(
          { component: 'alerting' },
          `cannot write alert state: ${message}; retrying until it succeeds`,
        );
      this.problem = { message, since: clock.wall() };
      this.armRetry();
    }
  }

  private armRetry(): void {
    if (this.stopped || this.retryTimer !== undefined) return;
    const delay = this.retryDelay;
    this.retryDelay = Math.min(delay * 2, this.deps.retryMaxMs ?? RETRY_MAX_MS);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.save();
    }, delay);
    this.retryTimer.unref();
  }

  /** The problem as a person reads it (/readyz, the status page); none while writes succeed. */
  problemLines(): string[] {
    const p = this.problem;
    if (!p) return [];
    return [
      `alert state not written since ${new Date(p.since).toISOString()} (${this.failures} failed writes, ` +
        `retrying): ${p.message}`,
    ];
  }

  /** No more retries; a last write is the caller's (save() still works). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }
}
