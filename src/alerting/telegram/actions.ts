// Answers one Telegram update: a command in the chat or a tap on an alert message's button.
// Only the receiver's chat and its listed users act; anyone else is answered "not allowed".
// Every action is answered in the chat and returned for the log. No I/O: the silences and the
// active alerts are handed in, the Bot API calls handed back.
import type { Labels } from '../rules/types.js';
import { durationText, matcherText } from '../acting/matcherArgs.js';
import type { Actor, SilenceService, SilenceWrite } from '../silences/types.js';
import { ackedBy } from './buttons.js';
import { HELP_TEXT, parseButton, parseCommand, type ChatCommand } from './commands.js';
import {
  tgName,
  type BotCall,
  type TgCallbackQuery,
  type TgMessage,
  type TgUpdate,
  type UpdateAnswer,
} from './updates.js';

export const NOT_ALLOWED = 'not allowed';
const SILENCE_BUTTON_MS = 3_600_000;
const MAX_LINES = 30;

/** A pending or firing alert, as the commands list and act on it. */
export interface ActiveAlert {
  fingerprint: string;
  name: string;
  state: 'pending' | 'firing';
  labels: Labels;
  summary?: string;
}

export interface ActingContext {
  /** The chat the receiver sends to: its id, or @channelname. */
  chatId: string;
  users: readonly number[];
  botUsername?: string;
  silences: SilenceService;
  alerts(): ActiveAlert[];
  now(): number;
}

export function answerUpdate(u: TgUpdate, ctx: ActingContext): UpdateAnswer {
  if (u.callback_query) return answerTap(u.callback_query, ctx);
  const msg = u.message;
  if (!msg?.text || !msg.from) return { calls: [] };
  const command = parseCommand(msg.text, ctx.botUsername);
  if (!command) return { calls: [] };
  const from = msg.from;
  if (!inChat(msg, ctx) || !ctx.users.includes(from.id))
    return {
      calls: [reply(msg, NOT_ALLOWED)],
      log: { user: from.id, username: from.username, action: command.kind, ok: false, detail: NOT_ALLOWED },
    };
  const { text, ok } = runCommand(command, msg, ctx);
  return {
    calls: [reply(msg, text)],
    log: { user: from.id, username: from.username, action: command.kind, ok, detail: text.split('\n')[0]! },
  };
}

function inChat(msg: TgMessage, ctx: ActingContext): boolean {
  return String(msg.chat.id) === ctx.chatId || (!!msg.chat.username && `@${msg.chat.username}` === ctx.chatId);
}

function reply(msg: TgMessage, text: string): BotCall {
  return {
    method: 'sendMessage',
    body: {
      chat_id: msg.chat.id,
      ...(msg.message_thread_id !== undefined ? { message_thread_id: msg.message_thread_id } : {}),
      text,
      reply_parameters: { message_id: msg.message_id, allow_sending_without_reply: true },
      link_preview_options: { is_disabled: true },
    },
  };
}

function answerTap(q: TgCallbackQuery, ctx: ActingContext): UpdateAnswer {
  const tap = parseButton(q.data);
  const answer = (text: string): BotCall => ({
    method: 'answerCallbackQuery',
    body: { callback_query_id: q.id, text, ...(text === NOT_ALLOWED ? { show_alert: true } : {}) },
  });
  const user = { user: q.from.id, username: q.from.username };
  if (!tap) return { calls: [answer('unknown button')] };
  const action = tap.action === 'ack' ? 'ack (button)' : 'silence 1h (button)';
  if (!q.message || !inChat(q.message, ctx) || !ctx.users.includes(q.from.id))
    return { calls: [answer(NOT_ALLOWED)], log: { ...user, action, ok: false, detail: NOT_ALLOWED } };
  const actor = actorOf(q.from);
  const now = ctx.now();
  let result: { text: string; ok: boolean };
  if (tap.action === 'ack') result = ackOne(tap.fingerprint, q.from, ctx, now, 'acknowledged from Telegram');
  else {
    const alert = ctx.alerts().find((a) => a.fingerprint === tap.fingerprint);
    result = alert
      ? said(
          ctx.silences.upsert(
            {
              matchers: Object.entries(alert.labels).map(([name, value]) => ({
                name,
                value,
                isRegex: false,
                isEqual: true,
              })),
              startsAt: now,
              endsAt: now + SILENCE_BUTTON_MS,
              createdBy: tgName(q.from),
              comment: 'Silence 1h from Telegram',
            },
            actor,
            now,
          ),
          (id) => `${tgName(q.from)} silenced ${alertName(alert)} for 1h (silence ${id})`,
        )
      : { text: 'that alert is no longer active', ok: false };
  }
  return {
    calls: [answer(result.text), reply(q.message, result.text)],
    log: { ...user, action, ok: result.ok, detail: result.text },
  };
}

const actorOf = (u: { id: number }): Actor => ({ user: `telegram:${u.id}`, via: 'telegram' });

function said(w: SilenceWrite, ok: (id: string) => string): { text: string; ok: boolean } {
  return 'id' in w ? { text: ok(w.id), ok: true } : { text: `refused: ${w.error}`, ok: false };
}

function ackOne(
  fingerprint: string,
  from: TgCallbackQuery['from'],
  ctx: ActingContext,
  now: number,
  comment: string,
): { text: string; ok: boolean } {
  const alert = ctx.alerts().find((a) => a.fingerprint === fingerprint);
  if (!alert) return { text: 'that alert is no longer active', ok: false };
  return said(
    ctx.silences.ack(fingerprint, actorOf(from), comment, now),
    (id) => `${tgName(from)} acknowledged ${alertName(alert)} until it resolves (silence ${id})`,
  );
}

const alertName = (a: ActiveAlert) => {
  const where = a.labels.node ?? a.labels.name ?? a.labels.network;
  return where ? `${a.name} ${where}` : a.name;
};

function runCommand(c: ChatCommand, msg: TgMessage, ctx: ActingContext): { text: string; ok: boolean } {
  const now = ctx.now();
  const from = msg.from!;
  switch (c.kind) {
    case 'bad':
      return { text: c.error, ok: false };
    case 'help':
      return { text: HELP_TEXT, ok: true };
    case 'status':
      return { text: statusText(ctx, now), ok: true };
    case 'alerts':
      return { text: alertsText(ctx, now), ok: true };
    case 'silences':
      return { text: silencesText(ctx, now), ok: true };
    case 'silence':
      return said(
        ctx.silences.upsert(
          {
            matchers: c.matchers,
            startsAt: now,
            endsAt: now + c.durationMs,
            createdBy: tgName(from),
            comment: c.comment,
          },
          actorOf(from),
          now,
        ),
        (id) => `silenced ${c.matchers.map(matcherText).join(' ')} for ${durationText(c.durationMs)} (silence ${id})`,
      );
    case 'unsilence': {
      const lines = c.ids.map((id) => said(ctx.silences.expire(id, actorOf(from), now), () => `expired silence ${id}`));
      return { text: lines.map((l) => l.text).join('\n'), ok: lines.every((l) => l.ok) };
    }
    case 'ack': {
      const fps = ackedBy(msg.reply_to_message?.reply_markup);
      if (fps.length === 0)
        return { text: 'reply /ack to an alert message (one with an Acknowledge button)', ok: false };
      const lines = fps.map((fp) => ackOne(fp, from, ctx, now, 'acknowledged from Telegram (/ack)'));
      return { text: lines.map((l) => l.text).join('\n'), ok: lines.some((l) => l.ok) };
    }
  }
}

function statusText(ctx: ActingContext, now: number): string {
  const alerts = ctx.alerts();
  const silenced = alerts.filter((a) => ctx.silences.silencedBy(a.labels, now).length > 0).length;
  const firing = alerts.filter((a) => a.state === 'firing').length;
  const states = ctx.silences.list(now).map((s) => s.state);
  const active = states.filter((s) => s === 'active').length;
  const pending = states.filter((s) => s === 'pending').length;
  return (
    `${firing} firing, ${alerts.length - firing} pending, ${silenced} of them silenced; ` +
    `${active} active and ${pending} pending silences`
  );
}

function alertsText(ctx: ActingContext, now: number): string {
  const firing = ctx.alerts().filter((a) => a.state === 'firing');
  if (firing.length === 0) return 'no alert fires';
  const lines = firing.slice(0, MAX_LINES).map((a) => {
    const by = ctx.silences.silencedBy(a.labels, now);
    return (
      `${alertName(a)} [${a.fingerprint}]${by.length > 0 ? ` silenced by ${by.join(', ')}` : ''}` +
      (a.summary ? `: ${a.summary}` : '')
    );
  });
  return [...lines, ...(firing.length > MAX_LINES ? [`and ${firing.length - MAX_LINES} more`] : [])].join('\n');
}

function silencesText(ctx: ActingContext, now: number): string {
  const live = ctx.silences.list(now).filter((s) => s.state !== 'expired');
  if (live.length === 0) return 'no active or pending silence';
  live.sort((a, b) => a.endsAt - b.endsAt);
  const lines = live
    .slice(0, MAX_LINES)
    .map(
      (s) =>
        `${s.id} ${s.state === 'pending' ? 'from ' + new Date(s.startsAt).toISOString() + ' ' : ''}until ` +
        `${new Date(s.endsAt).toISOString()} by ${s.createdBy}: ${s.matchers.map(matcherText).join(' ')}` +
        (s.comment ? ` (${s.comment})` : ''),
    );
  return [...lines, ...(live.length > MAX_LINES ? [`and ${live.length - MAX_LINES} more`] : [])].join('\n');
}
