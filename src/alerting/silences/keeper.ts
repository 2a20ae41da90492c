// The silences of a running daemon: the store, its file, the log line of each change and the
// acknowledgements' end. Lives as long as the alerting section (a reload keeps it; the state dir
// it writes to is asked at each write).
import type { Logger } from '../../logger.js';
import type { Secrets } from '../../redact.js';
import type { Labels } from '../rules/types.js';
import { formatMatcher } from './matchers.js';
import { SilencePersistence } from './persistence.js';
import { loadSilences } from './silenceFile.js';
import { SilenceStore, type SilenceEvent } from './store.js';

export const DEFAULT_ACK_MAX_MS = 24 * 3_600_000;
const GC_EVERY_MS = 3_600_000;

export interface SilenceKeeperDeps {
  stateDir(): string;
  wallNow(): number;
  ackMaxMs(): number;
  alertLabels(fingerprint: string): Labels | undefined;
  logger: Logger;
  secrets: Secrets;
}

export class SilenceKeeper {
  readonly store: SilenceStore;
  private readonly persistence: SilencePersistence;
  private loadProblem: string | undefined;
  private gcTimer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: SilenceKeeperDeps) {
    this.store = new SilenceStore({
      alertLabels: deps.alertLabels,
      get ackMaxMs() {
        return deps.ackMaxMs();
      },
      onEvent: (e) => this.changed(e),
    });
    this.persistence = new SilencePersistence({
      stateDir: deps.stateDir,
      silences: () => this.store.all(),
      wallNow: deps.wallNow,
      logger: deps.logger,
      secrets: deps.secrets,
    });
  }

  /** Loads the saved silences (a damaged file: set aside, the whole silences in it kept). */
  async start(): Promise<void> {
    const now = this.deps.wallNow();
    const loaded = await loadSilences(this.deps.stateDir(), now);
    const bad = this.store.restore(loaded.silences, now);
    if (loaded.problem) {
      this.loadProblem = this.deps.secrets.scrub(loaded.problem);
      this.deps.logger.error({ component: 'silences' }, this.loadProblem);
    }
    if (bad.length > 0)
      this.deps.logger.error(
        { component: 'silences', ids: bad.map((s) => s.id) },
        `${bad.length} saved silences have matchers this Node.js cannot run; left out`,
      );
    if (loaded.problem || bad.length > 0) await this.saved();
    this.deps.logger.info({ component: 'silences', count: this.store.all().length }, 'silences loaded');
    this.gcTimer = setInterval(() => {
      if (this.store.gc(this.deps.wallNow()) > 0) void this.saved();
    }, GC_EVERY_MS);
    this.gcTimer.unref();
  }

  /** Resolves once the changes made so far were written (or the write was tried: it is retried). */
  saved(): Promise<void> {
    return this.persistence.save();
  }

  /** After each evaluation: acknowledgements of alerts no longer pending or firing end now. */
  endAcks(active: ReadonlySet<string>): void {
    this.store.expireAcks((fp) => active.has(fp), this.deps.wallNow());
  }

  problems(): string[] {
    return [...(this.loadProblem ? [this.loadProblem] : []), ...this.persistence.problems()];
  }

  async stop(): Promise<void> {
    clearInterval(this.gcTimer);
    this.persistence.stop();
    await this.saved();
  }

  /** One log line a change: who, what, through which interface (never a secret: scrubbed). */
  private changed(e: SilenceEvent): void {
    void this.persistence.save();
    const s = e.silence;
    const scrub = (t: string) => this.deps.secrets.scrub(t);
    this.deps.logger.info(
      {
        component: 'silences',
        action: e.action,
        id: s.id,
        user: scrub(e.actor.user),
        via: e.actor.via,
        createdBy: scrub(s.createdBy),
        matchers: scrub(s.matchers.map(formatMatcher).join(',')),
        startsAt: new Date(s.startsAt).toISOString(),
        endsAt: new Date(s.endsAt).toISOString(),
        comment: scrub(s.comment),
        ...(s.ackOf ? { ackOf: s.ackOf } : {}),
      },
      `silence ${s.id} ${e.action === 'replicate' ? 'replicated from a peer' : `${e.action}d`} ` +
        `by ${scrub(e.actor.user)} via ${e.actor.via}`,
    );
  }
}
