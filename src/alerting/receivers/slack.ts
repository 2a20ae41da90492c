// Slack incoming webhook: readable text (notifications, fallbacks) plus blocks with a line per
// alert, its runbook and a link to the exporter's status page.
import * as z from 'zod';
import type { Notification, NotifiedAlert } from '../notification.js';
import { httpSend } from '../sender.js';
import { checkSecretPair, secretFields, secretOf, slot, url } from './fields.js';
import { defineReceiverKind, type OutboundRequest, type PayloadContext, type ReceiverBase } from './kind.js';
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
  resolve: (raw, file) => ({ webhookUrl: secretOf(raw, 'webhookUrl', file)!, ...(raw.channel ? { channel: raw.channel } : {}) }),
  secrets: (s) => ({ webhookUrl: slot(s.webhookUrl, 'webhook URL') }),
  build: (s, secret): SlackSpec => ({ webhookUrl: secret('webhookUrl')!, ...(s.channel ? { channel: s.channel } : {}) }),
  parts: (spec, n, ctx): OutboundRequest[] => [
    { url: spec.webhookUrl, headers: { 'content-type': 'application/json' }, body: JSON.stringify(slackPayload(spec, n, ctx)), label: `slack ${spec.name}` },
  ],
  send: (req, io) => httpSend(io.client, io.timeoutMs)(req),
  dryCheck: (spec, io) => checkReachable('slack', spec.name, spec.webhookUrl, io),
});

export function slackPayload(spec: SlackSpec & ReceiverBase, n: Notification, ctx: PayloadContext): object {
  const firing = n.alerts.filter((a) => a.status === 'firing').length;
  const resolved = n.alerts.length - firing;
  const name = n.alerts[0]?.labels.alertname ?? 'alert';
  const groupText = Object.entries(n.groupLabels).map(([k, v]) => `${k}=${v}`).join(', ');
  const headline = `${n.status === 'firing' ? ':red_circle: FIRING' : ':large_green_circle: RESOLVED'} ${name}${groupText ? ` (${groupText})` : ''}: ${firing} firing, ${resolved} resolved`;
  const statusPage = ctx.externalUrl.replace(/\/+$/, '') + '/';
  const shown = n.alerts.slice(0, MAX_ALERT_BLOCKS);
  const blocks: object[] = [
    { type: 'section', text: { type: 'mrkdwn', text: cut(`*${escape(headline)}*`) } },
    ...shown.map((a) => ({ type: 'section', text: { type: 'mrkdwn', text: cut(alertLine(a)) } })),
  ];
  if (n.alerts.length > shown.length) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `… and ${n.alerts.length - shown.length} more` }] });
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `<${statusPage}|Fleet status page>` }] });
  const text = cut([headline, ...n.alerts.map((a) => `- ${a.annotations.summary ?? a.labels.alertname}`)].join('\n'));
  return { ...(spec.channel ? { channel: spec.channel } : {}), text, blocks };
}

function alertLine(a: NotifiedAlert): string {
  const mark = a.status === 'firing' ? ':red_circle:' : ':large_green_circle:';
  const runbook = a.annotations.runbook_url ? ` <${a.annotations.runbook_url}|runbook>` : '';
  const description = a.annotations.description ? `\n${escape(a.annotations.description)}` : '';
  return `${mark} *${escape(a.annotations.summary ?? a.labels.alertname ?? '')}* (${a.labels.severity ?? 'none'})${runbook}${description}`;
}

/** Slack's mrkdwn control characters. */
function escape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function cut(s: string): string {
  return s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT - 1)}…` : s;
}
