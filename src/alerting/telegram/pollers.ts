// The command pollers of a config's telegram receivers with `commands`: imported by the component
// only when a config has such a receiver, so a daemon without one loads none of the poller, the
// command answers or their HTTP client.
import type { DaemonContext } from '../../daemon/component.js';
import { HttpClient } from '../../http/client.js';
import type { ReceiverSettings } from '../receivers/kind.js';
import { materializeReceiver, SecretReader } from '../receivers/materialize.js';
import { answerUpdate } from './actions.js';
import type { CommandsSettings, TelegramCommandsOptions } from './options.js';
import { CommandPoller } from './poller.js';
import type { UpdateAnswer } from './updates.js';

/** Starts one poller per receiver in `receivers` (telegram ones with `commands`). */
export function startPollers(
  c: DaemonContext,
  receivers: readonly ReceiverSettings[],
  opts: TelegramCommandsOptions,
): CommandPoller[] {
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
