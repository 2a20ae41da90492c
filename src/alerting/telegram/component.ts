// Telegram commands join the daemon: one poller per telegram receiver with `commands`, built at
// start and at each reload of the alerting section. Without such a receiver nothing runs (no
// timer, no request). The silences and the active alerts come from the alerting component.
import type { DaemonComponent, DaemonContext } from '../../daemon/component.js';
import { HttpClient } from '../../http/client.js';
import type { ReceiverSettings } from '../receivers/kind.js';
import { materializeReceiver, SecretReader } from '../receivers/materialize.js';
import type { SilenceService } from '../silences/types.js';
import { answerUpdate, type ActiveAlert } from './actions.js';
import { CommandPoller } from './poller.js';
import type { UpdateAnswer } from './updates.js';

export interface TelegramCommandsOptions {
  /** The running silence store; undefined while alerting is off. */
  silences(): SilenceService | undefined;
  alerts(): ActiveAlert[] | undefined;
  /** getUpdates' long-poll timeout (default 25 s). */
  pollTimeoutS?: number;
  /** Waits after a failure (default 2 s, doubling to 5 min). */
  backoff?: { minMs: number; maxMs: number };
}

interface CommandsSettings {
  chatId: string;
  commands?: { users: number[] };
}

export interface TelegramCommandsComponent extends DaemonComponent {
  /** How many pollers run (tests: none without `commands`). */
  pollers(): number;
}

export function telegramCommandsComponent(opts: TelegramCommandsOptions): TelegramCommandsComponent {
  let pollers: CommandPoller[] = [];
  let ctx: DaemonContext | undefined;
  const stopAll = () => {
    for (const p of pollers) p.stop();
    pollers = [];
  };
  return {
    name: 'telegram-commands',
    start(c) {
      ctx = c;
      pollers = build(c, opts);
    },
    onReload(diff) {
      if (!ctx || !diff.sections.includes('alerting')) return;
      stopAll();
      pollers = build(ctx, opts);
    },
    problems: () => pollers.flatMap((p) => p.problem() ?? []),
    halt: stopAll,
    pollers: () => pollers.length,
  };
}

function build(c: DaemonContext, opts: TelegramCommandsOptions): CommandPoller[] {
  const receivers = (c.config().alerting?.receivers ?? []).filter(
    (r) => r.kind === 'telegram' && (r as ReceiverSettings & CommandsSettings).commands,
  );
  return receivers.map((r) => {
    const settings = r as ReceiverSettings & CommandsSettings;
    const reader = new SecretReader();
    // Its own connections: a long poll held open must not queue the receivers' sends to the same
    // Bot API host behind it, and closing them ends the poll in flight at a stop.
    const client = new HttpClient({ secrets: c.secrets });
    const poller = new CommandPoller({
      receiver: r.name,
      botUrl: async () => {
        const spec = (await materializeReceiver(r, c.secrets, reader)) as unknown as {
          apiUrl: string;
          botToken: string;
        };
        return `${spec.apiUrl}/bot${spec.botToken}`;
      },
      client,
      secrets: c.secrets,
      log: c.logger.child({ component: 'telegram-commands' }),
      answer: (u, botUsername): UpdateAnswer => {
        const silences = opts.silences();
        if (!silences) return { calls: [] };
        return answerUpdate(u, {
          chatId: settings.chatId,
          users: settings.commands!.users,
          ...(botUsername ? { botUsername } : {}),
          silences,
          alerts: () => opts.alerts() ?? [],
          now: () => c.clock.wall(),
        });
      },
      pollTimeoutS: opts.pollTimeoutS ?? 25,
      backoff: opts.backoff ?? { minMs: 2_000, maxMs: 300_000 },
    });
    poller.start();
    return poller;
  });
}
