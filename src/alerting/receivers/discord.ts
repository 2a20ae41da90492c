// Discord webhook: execute with `content` (at most 2,000 characters), every text's Markdown escaped,
// and `allowed_mentions: {parse: []}` always, so no text can ping @everyone, a role or a user.
// Success is 204. A 429 is retried after its Retry-After header, else the body's `retry_after`
// (seconds; some webhooks report milliseconds, so it is clamped).
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
import { alertTexts, andMore, clip, fitItems, statusPageUrl, title, type AlertText } from './message.js';

export const DISCORD_MAX_CHARS = 2000;
/** A body's retry_after above this is taken as milliseconds misreported, and cut to it. */
export const DISCORD_MAX_BODY_WAIT_MS = 60_000;

export interface DiscordSpec {
  webhookUrl: string;
  username?: string;
}

export const discordKind = defineReceiverKind({
  kind: 'discord',
  description: 'Discord webhook: one message per group, Markdown escaped, mentions disabled.',
  fields: {
    ...secretFields('webhookUrl', 'Discord webhook URL', httpsUrl('Discord webhook URL (secret).')),
    username: z
      .string()
      .min(1)
      .max(80)
      .optional()
      .meta({ description: "Name the messages are posted under; default the webhook's own." }),
  },
  check: (raw, issue) => checkSecretPair(raw, 'webhookUrl', issue),
  resolve: (raw, file) => ({
    webhookUrl: secretOf(raw, 'webhookUrl', file)!,
    ...(raw.username ? { username: raw.username } : {}),
  }),
  secrets: (s) => ({ webhookUrl: slot(s.webhookUrl, 'webhook URL') }),
  build: (s, secret): DiscordSpec => ({
    webhookUrl: secret('webhookUrl')!,
    ...(s.username ? { username: s.username } : {}),
  }),
  parts: (spec, n, ctx): OutboundRequest[] => [
    {
      url: spec.webhookUrl,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        content: discordContent(n, ctx),
        allowed_mentions: { parse: [] },
        ...(spec.username ? { username: spec.username } : {}),
      }),
      label: `discord ${spec.name}`,
    },
  ],
  send: (req, io) => httpSend(io.client, io.timeoutMs, discordRetryAfter)(req),
  dryCheck: checkDiscord,
});

/** Discord's 429 body: `{"message":"You are being rate limited.","retry_after":0.85,"global":false}`. */
export function discordRetryAfter(_status: number, body: Buffer): number | undefined {
  try {
    const wait = (JSON.parse(body.toString('utf8')) as { retry_after?: unknown }).retry_after;
    if (typeof wait !== 'number' || !Number.isFinite(wait) || wait < 0) return undefined;
    return Math.min(wait * 1000, DISCORD_MAX_BODY_WAIT_MS);
  } catch {
    return undefined;
  }
}

/**
 * Discord Markdown: every character that can start formatting, a link, a heading, a list, a quote,
 * a mention (`<@id>`, `@everyone`) or an emoji (`:name:`) is backslash-escaped, so it shows as typed.
 */
export function escapeMarkdown(s: string): string {
  return s.replace(/[\\*_~`|>#\-[\]()<@:!+=.]/g, '\\$&');
}

export function discordContent(n: Notification, ctx: PayloadContext): string {
  const page = statusPageUrl(ctx);
  const line = (a: AlertText) =>
    `${a.firing ? '🔴' : '🟢'} **${escapeMarkdown(a.summary)}** (${escapeMarkdown(a.severity)})` +
    (a.runbookUrl ? ` runbook: <${a.runbookUrl}>` : '') +
    (a.description ? `\n${escapeMarkdown(clip(a.description, 300))}` : '');
  const render = (shown: readonly AlertText[], more: number) =>
    [
      `**${escapeMarkdown(title(n))}**`,
      ...shown.map(line),
      ...(more > 0 ? [andMore(more)] : []),
      ...(page ? [`Fleet status page: <${page}>`] : []),
    ].join('\n');
  return fitItems(alertTexts(n), render, DISCORD_MAX_CHARS);
}

/** GET on a webhook URL returns the webhook (sending nothing); 401/404 means the URL is no longer valid. */
async function checkDiscord(spec: DiscordSpec & ReceiverBase, io: DryCheckIO): Promise<DryCheckResult> {
  const label = `discord ${spec.name} (webhook)`;
  const out = await io.http({
    method: 'GET',
    url: spec.webhookUrl,
    timeoutMs: io.timeoutMs,
    maxBytes: 64 * 1024,
    label,
  });
  if (out.ok) return { receiver: spec.name, ok: true, detail: 'Discord webhook valid' };
  if (out.status === 401 || out.status === 403 || out.status === 404)
    return { receiver: spec.name, ok: false, detail: `${label}: the webhook URL is refused (HTTP ${out.status})` };
  return {
    receiver: spec.name,
    ok: false,
    detail:
      out.status !== undefined ? `${label}: answers HTTP ${out.status}` : `${label}: unreachable (${out.message})`,
  };
}
