// The receivers of one alerting config, each with its own queue. A receiver whose secret cannot
// be read has no queue: it is remembered with the reason, and built again on demand (at most
// once per given gap), so a secret that appears later is used without a reload. A secret file
// that changes is read again (refresh(), at each evaluation) and used from then on.
import type { Logger } from '../../logger.js';
import type { Secrets } from '../../redact.js';
import { ReceiverQueue, type DeliveryReport, type SendFn } from './queue.js';
import type { ReceiverSettings, ReceiverSpec } from '../receivers/kind.js';
import { materializeReceiver, SecretReader } from '../receivers/materialize.js';

export interface ReceiverSetDeps {
  logger: Logger;
  secrets: Secrets;
  sendFor(receiver: ReceiverSettings): SendFn;
  now: () => number;
  onReport(r: DeliveryReport): void;
}

export interface UsableReceiver {
  queue: ReceiverQueue;
  spec: ReceiverSpec;
}

export class ReceiverSet {
  private readonly usable = new Map<string, UsableReceiver>();
  /** name -> why it has no queue (scrubbed), and when it was last tried. */
  private readonly unusable = new Map<string, { reason: string; triedAt: number }>();
  private readonly reader = new SecretReader();

  private constructor(
    private readonly settings: readonly ReceiverSettings[],
    private readonly deps: ReceiverSetDeps,
  ) {}

  /** Built whole before use: a notification due meanwhile goes to the set still in place. */
  static async build(settings: readonly ReceiverSettings[], deps: ReceiverSetDeps): Promise<ReceiverSet> {
    const set = new ReceiverSet(settings, deps);
    for (const r of settings) await set.tryBuild(r);
    return set;
  }

  get(name: string): UsableReceiver | undefined {
    return this.usable.get(name);
  }

  all(): UsableReceiver[] {
    return [...this.usable.values()];
  }

  lengths(): Map<string, number> {
    return new Map([...this.usable].map(([name, r]) => [name, r.queue.length]));
  }

  /** Why `name` has no queue. */
  whyUnusable(name: string): string {
    return this.unusable.get(name)?.reason ?? 'not configured';
  }

  /** Builds `name` again if it has no queue and was last tried at least `minGapMs` ago. */
  retry(name: string, minGapMs: number): void {
    const down = this.unusable.get(name);
    const spec = this.settings.find((r) => r.name === name);
    if (!down || !spec || this.deps.now() - down.triedAt < minGapMs) return;
    down.triedAt = this.deps.now();
    void this.tryBuild(spec).then(
      (ok) => ok && this.deps.logger.info({ component: 'alerting', receiver: name }, 'receiver usable again'),
    );
  }

  /** Reads the secret files of usable receivers again; a changed one gives its receiver a new spec. */
  async refresh(): Promise<void> {
    for (const r of this.settings.filter(SecretReader.hasFiles)) {
      const usable = this.usable.get(r.name);
      if (!usable) continue;
      // A file missing for a moment (a secret being replaced) keeps the spec in use.
      usable.spec = await materializeReceiver(r, this.deps.secrets, this.reader).catch(() => usable.spec);
    }
  }

  private async tryBuild(r: ReceiverSettings): Promise<boolean> {
    let spec: ReceiverSpec;
    try {
      spec = await materializeReceiver(r, this.deps.secrets, this.reader);
    } catch (err) {
      const reason = this.deps.secrets.scrub((err as Error).message);
      if (this.unusable.get(r.name)?.reason !== reason)
        this.deps.logger.error({ component: 'alerting', receiver: r.name }, reason);
      this.unusable.set(r.name, { reason, triedAt: this.deps.now() });
      return false;
    }
    const queue = new ReceiverQueue({
      receiver: r.name,
      send: this.deps.sendFor(r),
      sleep: (ms, signal) => sleep(ms, signal),
      now: this.deps.now,
      onReport: (rep) => this.deps.onReport(rep),
    });
    this.usable.set(r.name, { queue, spec });
    this.unusable.delete(r.name);
    return true;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}
