// Telegram commands join the daemon: one poller per telegram receiver with `commands`, built at
// start and at each reload of the alerting section. Without such a receiver nothing runs (no
// timer, no request) and the pollers' modules are not loaded (pollers.ts). The silences and the
// active alerts come from the alerting component.
import type { DaemonComponent, DaemonContext } from '../../daemon/component.js';
import type { ReceiverSettings } from '../receivers/kind.js';
import type { CommandsSettings, TelegramCommandsOptions } from './options.js';

export type { TelegramCommandsOptions } from './options.js';

export interface TelegramCommandsComponent extends DaemonComponent {
  /** How many pollers run (tests: none without `commands`). */
  pollers(): number;
}

interface Poller {
  stop(): void;
  problem(): string | undefined;
}

/** The config's telegram receivers with `commands`. */
const commandReceivers = (c: DaemonContext): ReceiverSettings[] =>
  (c.config().alerting?.receivers ?? []).filter(
    (r) => r.kind === 'telegram' && (r as ReceiverSettings & CommandsSettings).commands,
  );

export function telegramCommandsComponent(opts: TelegramCommandsOptions): TelegramCommandsComponent {
  let pollers: Poller[] = [];
  let ctx: DaemonContext | undefined;
  // Rebuilds apply one after another (the first one may wait for the pollers' modules to load).
  let chain: Promise<void> = Promise.resolve();
  const stopAll = () => {
    for (const p of pollers) p.stop();
    pollers = [];
  };
  const rebuild = (c: DaemonContext) => {
    stopAll();
    const receivers = commandReceivers(c);
    if (receivers.length === 0) return chain;
    const run = chain.then(async () => {
      const { startPollers } = await import('./pollers.js');
      if (ctx !== c) return; // halted meanwhile
      stopAll();
      pollers = startPollers(c, commandReceivers(c), opts);
    });
    chain = run.catch(() => undefined);
    return run;
  };
  return {
    name: 'telegram-commands',
    start(c) {
      ctx = c;
      return rebuild(c);
    },
    onReload(diff) {
      if (!ctx || !diff.sections.includes('alerting')) return;
      const c = ctx;
      rebuild(c).catch((err: Error) =>
        c.logger.error({ component: 'telegram-commands' }, `telegram commands failed: ${c.secrets.scrub(err.message)}`),
      );
    },
    problems: () => pollers.flatMap((p) => p.problem() ?? []),
    halt: () => {
      ctx = undefined;
      stopAll();
    },
    pollers: () => pollers.length,
  };
}
