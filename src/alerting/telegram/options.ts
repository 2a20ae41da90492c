// What the Telegram commands component is given, and what a receiver with commands holds.
import type { SilenceService } from '../silences/types.js';
import type { ActiveAlert } from './actions.js';

export interface TelegramCommandsOptions {
  /** The running silence store; undefined while alerting is off. */
  silences(): SilenceService | undefined;
  alerts(): ActiveAlert[] | undefined;
  /** getUpdates' long-poll timeout (default 25 s). */
  pollTimeoutS?: number;
  /** Waits after a failure (default 2 s, doubling to 5 min). */
  backoff?: { minMs: number; maxMs: number };
}

export interface CommandsSettings {
  chatId: string;
  commands?: { users: number[] };
}
