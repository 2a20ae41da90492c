// The inline buttons under an alert message of a telegram receiver with `commands`: per firing
// alert "Acknowledge" and "Silence 1h", its fingerprint in the callback data (64 bytes at most),
// so a tap, or a /ack in reply to the message, names the alert without any state kept here.
import type { Notification } from '../notify/notification.js';
import { ackData, parseButton, silenceData } from './commands.js';

export interface InlineButton {
  text: string;
  callback_data: string;
}
export interface InlineKeyboard {
  inline_keyboard: InlineButton[][];
}

/** Rows beyond this would bury the message: the rest is in /alerts. */
export const MAX_BUTTON_ROWS = 8;
const NAME_CHARS = 24;

/** The keyboard for a notification, or undefined when nothing in it fires. */
export function alertButtons(n: Notification): InlineKeyboard | undefined {
  const firing = n.alerts.filter((a) => a.status === 'firing').slice(0, MAX_BUTTON_ROWS);
  if (firing.length === 0) return undefined;
  const one = firing.length === 1;
  return {
    inline_keyboard: firing.map((a) => {
      const who = one ? '' : ` · ${short(a.labels.node ?? a.labels.name ?? a.labels.alertname ?? a.id)}`;
      return [
        { text: `Acknowledge${who}`, callback_data: ackData(a.id) },
        { text: `Silence 1h${who}`, callback_data: silenceData(a.id) },
      ];
    }),
  };
}

const short = (s: string) => (s.length > NAME_CHARS ? `${s.slice(0, NAME_CHARS - 1)}…` : s);

/** The fingerprints a message's Acknowledge buttons name (a /ack in reply to it acknowledges those). */
export function ackedBy(markup: unknown): string[] {
  const rows = (markup as Partial<InlineKeyboard> | undefined)?.inline_keyboard;
  if (!Array.isArray(rows)) return [];
  return rows
    .flat()
    .map((b) => parseButton((b as Partial<InlineButton>)?.callback_data))
    .filter((t) => t?.action === 'ack')
    .map((t) => t!.fingerprint);
}
