// Telegram Bot API: sendMessage to a chat (and a forum topic), HTML parse mode with every text
// escaped, at most 4,096 characters. The bot token is part of the URL: the URL is the secret. A
// 429 carries its wait in the body (`parameters.retry_after`, seconds).
import * as z from 'zod';
import type { Notification } from '../notify/notification.js';
import { httpSend } from '../notify/sender.js';
import { checkSecretPair, httpsUrl, secretFields, secretOf, slot } from './fields.js';
import {
  defineReceiverKind,
  type DryCheckIO,
  type DryCheckResult,
  type OutboundRequest,
  type PayloadContext,
  type ReceiverBase,
} from './kind.js';
import { alertTexts, andMore, escapeHtml, fitItems, statusPageUrl, title, type AlertText } from './message.js';
import { alertButtons } from '../telegram/buttons.js';

export const DEFAULT_TELEGRAM_API = 'https://api.telegram.org';
/** sendMessage's limit on a message's text. */
export const TELEGRAM_MAX_CHARS = 4096;

export interface TelegramSpec {
  botToken: string;
  chatId: string;
  messageThreadId?: number;
  apiUrl: string;
  /** Commands and buttons on: the Telegram user ids allowed to act (src/alerting/telegram/). */
  commands?: { users: number[] };
}

const commandsSchema = z
  .strictObject({
    users: z
      .array(z.int().positive())
      .min(1, 'list at least one Telegram user id allowed to act')
      .meta({ description: 'Telegram user ids allowed to act; anyone else is answered "not allowed".' }),
  })
  .optional()
  .meta({
    description:
      'Read commands and button taps from chatId (long-polled getUpdates, outbound only); alert messages get ' +
      '"Acknowledge" and "Silence 1h" buttons. One program per bot may read its updates.',
  });

export const telegramKind = defineReceiverKind({
  kind: 'telegram',
  description: 'Telegram bot: sendMessage to a chat (or a forum topic), HTML formatted, every text escaped.',
  fields: {
    ...secretFields(
      'botToken',
      'bot token from @BotFather',
      z.string().regex(/^[0-9]+:[A-Za-z0-9_-]+$/, 'a bot token looks like 123456:ABC-DEF...'),
    ),
    chatId: z
      .union([
        z
          .string()
          .regex(
            /^(-?[0-9]+|@[A-Za-z][A-Za-z0-9_]{3,})$/,
            'chatId is a number (e.g. "-1001234567890") or @channelname',
          ),
        z.int(),
      ])
      .transform(String)
      .meta({ description: 'Chat to send to: its id (groups and channels are negative), or @channelname.' }),
    messageThreadId: z.int().positive().optional().meta({ description: 'Forum topic (message thread) of the chat.' }),
    apiUrl: httpsUrl('Bot API base URL (a local Bot API server).').default(DEFAULT_TELEGRAM_API),
    commands: commandsSchema,
  },
  check: (raw, issue) => checkSecretPair(raw, 'botToken', issue),
  resolve: (raw, file) => ({
    botToken: secretOf(raw, 'botToken', file)!,
    chatId: raw.chatId,
    ...(raw.messageThreadId !== undefined ? { messageThreadId: raw.messageThreadId } : {}),
    apiUrl: raw.apiUrl.replace(/\/+$/, ''),
    ...(raw.commands ? { commands: { users: raw.commands.users } } : {}),
  }),
  secrets: (s) => ({ botToken: slot(s.botToken, 'bot token') }),
  build: (s, secret): TelegramSpec => ({ ...s, botToken: secret('botToken')! }),
  parts: (spec, n, ctx): OutboundRequest[] => [
    {
      url: `${spec.apiUrl}/bot${spec.botToken}/sendMessage`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        chat_id: spec.chatId,
        ...(spec.messageThreadId !== undefined ? { message_thread_id: spec.messageThreadId } : {}),
        text: telegramText(n, ctx),
        parse_mode: 'HTML',
        link_preview_options: { is_disabled: true },
        ...(spec.commands ? buttonsOf(n) : {}),
      }),
      label: `telegram ${spec.name}`,
    },
  ],
  send: (req, io) => httpSend(io.client, io.timeoutMs, telegramRetryAfter)(req),
  dryCheck: checkTelegram,
});

function buttonsOf(n: Notification): { reply_markup?: object } {
  const keyboard = alertButtons(n);
  return keyboard ? { reply_markup: keyboard } : {};
}

/** Telegram's refusals: `{"ok":false,"error_code":429,"parameters":{"retry_after":5}}`. */
export function telegramRetryAfter(_status: number, body: Buffer): number | undefined {
  try {
    const seconds = (JSON.parse(body.toString('utf8')) as { parameters?: { retry_after?: unknown } }).parameters
      ?.retry_after;
    return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
  } catch {
    return undefined;
  }
}

export function telegramText(n: Notification, ctx: PayloadContext): string {
  const page = statusPageUrl(ctx);
  const line = (a: AlertText) =>
    `${a.firing ? '🔴' : '🟢'} <b>${escapeHtml(a.summary)}</b> (${escapeHtml(a.severity)})` +
    (a.runbookUrl ? ` <a href="${escapeHtml(a.runbookUrl)}">runbook</a>` : '') +
    (a.description ? `\n${escapeHtml(a.description)}` : '');
  const render = (shown: readonly AlertText[], more: number) =>
    [
      `<b>${escapeHtml(title(n))}</b>`,
      ...shown.map(line),
      ...(more > 0 ? [andMore(more)] : []),
      ...(page ? [`<a href="${escapeHtml(page)}">Fleet status page</a>`] : []),
    ].join('\n\n');
  // Telegram counts the text once entities are parsed (in UTF-16 units): never more than this.
  return fitItems(alertTexts(n), render, TELEGRAM_MAX_CHARS);
}

/** getChat: checks the token (401) and that the bot may reach the chat (400 "chat not found"), sending nothing. */
async function checkTelegram(spec: TelegramSpec & ReceiverBase, io: DryCheckIO): Promise<DryCheckResult> {
  const label = `telegram ${spec.name} (getChat)`;
  const url = `${spec.apiUrl}/bot${spec.botToken}/getChat?chat_id=${encodeURIComponent(spec.chatId)}`;
  const out = await io.http({ method: 'GET', url, timeoutMs: io.timeoutMs, maxBytes: 64 * 1024, label });
  if (out.ok) return { receiver: spec.name, ok: true, detail: 'Telegram bot token accepted and chat reachable' };
  if (out.status === 401 || out.status === 404)
    return { receiver: spec.name, ok: false, detail: `${label}: rejects the bot token (HTTP ${out.status})` };
  if (out.status === 400 || out.status === 403)
    return {
      receiver: spec.name,
      ok: false,
      detail: `${label}: the bot cannot reach chat ${spec.chatId} (HTTP ${out.status})`,
    };
  return {
    receiver: spec.name,
    ok: false,
    detail:
      out.status !== undefined ? `${label}: answers HTTP ${out.status}` : `${label}: unreachable (${out.message})`,
  };
}
