// Slack incoming webhook: readable text (notifications, fallbacks) plus blocks with a line per
// alert, its runbook and a link to the exporter's status page. Text from nodes and config is
// escaped in mrkdwn and plain_text in blocks: it can neither mention anyone nor format.
import * as z from 'zod';
import type { Notification } from '../notify/notification.js';
import { urlSegmentsAfter } from '../../redact.js';
import { httpSend } from '../notify/sender.js';
import { checkSecretPair, secretFields, secretOf, slot, url } from './fields.js';
import { defineReceiverKind, type OutboundRequest, type PayloadContext, type ReceiverBase } from './kind.js';
import { alertTexts, andMore, statusPageUrl, type AlertText } from './message.js';
import { checkReachable } from './reachable.js';

/** Slack allows 50 blocks; the rest of a mass outage is summarised in one line. */
const MAX_ALERT_BLOCKS = 20;
const MAX_TEXT = 2900;

export interface SlackSpec {
  webhookUrl: string;
  channel?: string;
}

export const slackKind = defineReceiverKind({
  kind: 'slack',
  description: 'Slack incoming webhook: text and blocks with runbook and status page links.',
  fields: {
    ...secretFields('webhookUrl', 'Slack incoming webhook URL', url('Slack incoming webhook URL (secret).')),
    channel: z.string().min(1).optional().meta({ description: "Channel override; default the webhook's own channel." }),
  },
  check: (raw, issue) => checkSecretPair(raw, 'webhookUrl', issue),
  resolve: (raw, file) => ({
    webhookUrl: secretOf(raw, 'webhookUrl', file)!,
    ...(raw.channel ? { channel: raw.channel } : {}),
  }),
  secrets: (s) => ({ webhookUrl: slot(s.webhookUrl, 'webhook URL') }),
  build: (s, secret): SlackSpec => ({
    webhookUrl: secret('webhookUrl')!,
    ...(s.channel ? { channel: s.channel } : {}),
  }),
  // Slack's layout: /services/<team>/<bot>/<token>, each a secret whatever it looks like.
  derivedSecrets: (spec) => urlSegmentsAfter(spec.webhookUrl, 'services'),
  parts: (spec, n, ctx): OutboundRequest[] => [
    {
      url: spec.webhookUrl,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(slackPayload(spec, n, ctx)),
      label: `slack ${spec.name}`,
    },
  ],
  send: (req, io) => httpSend(io.client, io.timeoutMs)(req),
  dryCheck: (spec, io) => checkReachable('slack', spec.name, spec.webhookUrl, io),
});

export function slackPayload(spec: SlackSpec & ReceiverBase, n: Notification, ctx: PayloadContext): object {
  const firing = n.alerts.filter((a) => a.status === 'firing').length;
  const resolved = n.alerts.length - firing;
  const name = n.alerts[0]?.labels.alertname ?? 'alert';
  const groupText = Object.entries(n.groupLabels)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  const headline =
    `${n.status === 'firing' ? 'FIRING' : 'RESOLVED'} ${name}${groupText ? ` (${groupText})` : ''}: ${firing} ` +
    `firing, ${resolved} resolved`;
  const statusPage = statusPageUrl(ctx);
  const shown = alertTexts(n).slice(0, MAX_ALERT_BLOCKS);
  // Text from nodes and config goes in plain_text only: it cannot format or mention (<!channel>).
  const blocks: object[] = [
    { type: 'section', text: plain(`${n.status === 'firing' ? '🔴' : '🟢'} ${headline}`) },
    ...shown.flatMap(alertBlocks),
  ];
  if (n.alerts.length > shown.length)
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: andMore(n.alerts.length - shown.length) }] });
  if (statusPage)
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `<${statusPage}|Fleet status page>` }] });
  const lines = [
    `${n.status === 'firing' ? ':red_circle:' : ':large_green_circle:'} ${escape(headline)}`,
    ...n.alerts.map((a) => `- ${escape(a.annotations.summary ?? a.labels.alertname ?? '')}`),
  ];
  return { ...(spec.channel ? { channel: spec.channel } : {}), text: cut(lines.join('\n')), blocks };
}

const plain = (text: string) => ({ type: 'plain_text', text: cut(text), emoji: false });

function alertBlocks(a: AlertText): object[] {
  const line = `${a.firing ? '🔴' : '🟢'} ${a.summary} (${a.severity})${a.description ? `\n${a.description}` : ''}`;
  return [
    { type: 'section', text: plain(line) },
    ...(a.runbookUrl ? [{ type: 'context', elements: [{ type: 'mrkdwn', text: `<${a.runbookUrl}|runbook>` }] }] : []),
  ];
}

/** Slack's control characters in mrkdwn (mentions and links start with <). */
function escape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function cut(s: string): string {
  return s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT - 1)}…` : s;
}
