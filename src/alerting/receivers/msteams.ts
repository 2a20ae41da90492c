// Microsoft Teams through a Workflows webhook ("When a Teams webhook request is received"): an
// Adaptive Card per group. Text blocks render a Markdown subset, so text is escaped where Markdown
// would act on it (only there: several Teams clients show every backslash); links are card
// actions, never Markdown. The old Office 365 connectors are retired. Success is 202.
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
  description: 'Microsoft Teams Workflows webhook: an Adaptive Card per group; no text can add a link or formatting.',
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

/**
 * Adaptive Card text as typed: a backslash only where Markdown would act (emphasis, links and
 * autolinks, code, strikethrough, entities, card date functions, and list, heading, quote and rule
 * markers at a line's start). Each line is its own paragraph, so no block spans lines (tables,
 * underlined headings). Several Teams clients show backslashes (AdaptiveCards issues 5590, 4677),
 * so "r-2 (mainnet)" stays "r-2 (mainnet)".
 */
export function escapeTeamsMarkdown(s: string): string {
  return s.split(/\r?\n/).map(escapeTeamsLine).join('\n\n');
}

const ALNUM = /[\p{L}\p{N}]/u;

function escapeTeamsLine(raw: string): string {
  const line = raw
    // Leading blanks would make a code block; Markdown drops them from a paragraph anyway.
    .replace(/^[ \t]+/, '')
    // A backslash before punctuation escapes it: written twice it shows once.
    .replace(/\\(?=[!-/:-@[-`{-~])/g, '\\\\')
    .replace(/[*[\]`<~]|\{\{|&(?=#?[A-Za-z0-9]+;)/g, (m) => [...m].map((c, i) => (i === 0 ? `\\${c}` : c)).join(''))
    // An underscore inside a word never emphasises; next to anything else it may.
    .replace(/_/g, (m, at: number, all: string) =>
      ALNUM.test(all[at - 1] ?? '') && ALNUM.test(all[at + 1] ?? '') ? m : '\\_',
    );
  // List items, headings, quotes and rules start a line.
  return line.replace(/^([-+#>=])/, '\\$1').replace(/^(\d+)([.)])/, '$1\\$2');
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
