// Microsoft Teams through a Workflows webhook ("When a Teams webhook request is received"): an
// Adaptive Card per group. Text blocks render a Markdown subset, so every text is escaped; links
// are card actions, never Markdown. The old Office 365 connectors are retired. Success is 202.
import type { Notification } from '../notify/notification.js';
import { httpSend } from '../notify/sender.js';
import { checkSecretPair, httpsUrl, secretFields, secretOf, slot } from './fields.js';
import { defineReceiverKind, type OutboundRequest, type PayloadContext } from './kind.js';
import { alertTexts, andMore, statusPageUrl, title, type AlertText } from './message.js';
import { checkReachable } from './reachable.js';

/** Alerts shown as their own blocks; Teams refuses cards over ~28 KB. */
export const TEAMS_MAX_ALERTS = 20;

export interface TeamsSpec {
  webhookUrl: string;
}

export const msteamsKind = defineReceiverKind({
  kind: 'msteams',
  description: 'Microsoft Teams Workflows webhook: an Adaptive Card per group, every text escaped.',
  fields: {
    ...secretFields('webhookUrl', 'Teams Workflows webhook URL', httpsUrl('Teams Workflows webhook URL (secret).')),
  },
  check: (raw, issue) => checkSecretPair(raw, 'webhookUrl', issue),
  resolve: (raw, file) => ({ webhookUrl: secretOf(raw, 'webhookUrl', file)! }),
  secrets: (s) => ({ webhookUrl: slot(s.webhookUrl, 'webhook URL') }),
  build: (_s, secret): TeamsSpec => ({ webhookUrl: secret('webhookUrl')! }),
  parts: (spec, n, ctx): OutboundRequest[] => [
    {
      url: spec.webhookUrl,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(teamsMessage(n, ctx)),
      label: `msteams ${spec.name}`,
    },
  ],
  send: (req, io) => httpSend(io.client, io.timeoutMs)(req),
  dryCheck: (spec, io) => checkReachable('msteams', spec.name, spec.webhookUrl, io),
});

/** The Markdown subset of Adaptive Card text: each special character backslash-escaped shows as typed. */
export function escapeTeamsMarkdown(s: string): string {
  return s.replace(/[\\*_~`|>#\-+![\]()<{}.:]/g, '\\$&').replace(/\r?\n/g, '\n\n');
}

const text = (t: string, extra: object = {}) => ({
  type: 'TextBlock',
  text: escapeTeamsMarkdown(t),
  wrap: true,
  ...extra,
});

export function teamsMessage(n: Notification, ctx: PayloadContext): object {
  const alerts = alertTexts(n);
  const shown = alerts.slice(0, TEAMS_MAX_ALERTS);
  const page = statusPageUrl(ctx);
  const block = (a: AlertText) => ({
    type: 'Container',
    separator: true,
    items: [
      text(`${a.firing ? 'FIRING' : 'RESOLVED'}: ${a.summary} (${a.severity})`, {
        weight: 'Bolder',
        color: a.firing ? 'Attention' : 'Good',
      }),
      ...(a.description ? [text(a.description, { isSubtle: true })] : []),
    ],
    ...(a.runbookUrl ? { selectAction: { type: 'Action.OpenUrl', title: 'Runbook', url: a.runbookUrl } } : {}),
  });
  const actions = [...(page ? [{ type: 'Action.OpenUrl', title: 'Fleet status page', url: page }] : [])];
  const runbook = alerts.find((a) => a.runbookUrl)?.runbookUrl;
  if (runbook) actions.push({ type: 'Action.OpenUrl', title: 'Runbook', url: runbook });
  const card = {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: '1.4',
    msteams: { width: 'Full' },
    body: [
      text(title(n), { size: 'Large', weight: 'Bolder', color: n.status === 'firing' ? 'Attention' : 'Good' }),
      ...shown.map(block),
      ...(alerts.length > shown.length ? [text(andMore(alerts.length - shown.length))] : []),
    ],
    actions,
  };
  return {
    type: 'message',
    attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: card }],
  };
}
