// ntfy: publish to a topic, as JSON to the server's root (so titles need no header encoding),
// plain text (no Markdown), priority and tags from the severity, an optional access token. On a
// public server the topic name is the only protection: the topic URL is a secret too.
import type { Notification } from '../notify/notification.js';
import { httpSend } from '../notify/sender.js';
import { checkSecretPair, httpsUrlReason, reasoned, secretFields, secretOf, slot } from './fields.js';
import {
  defineReceiverKind,
  type DryCheckIO,
  type DryCheckResult,
  type OutboundRequest,
  type PayloadContext,
  type ReceiverBase,
} from './kind.js';
import { alertTexts, andMore, fitItems, statusPageUrl, titleWithSubjects, type AlertText } from './message.js';

/** ntfy turns a longer message into an attachment. */
export const NTFY_MAX_BYTES = 4096;

/** ntfy priorities: 5 urgent, 4 high, 3 default, 2 low. */
const PRIORITY: Record<string, number> = { critical: 5, warning: 4, info: 3 };
const TAGS: Record<string, string> = { critical: 'rotating_light', warning: 'warning', info: 'information_source' };

export interface NtfySpec {
  url: string;
  token?: string;
}

export const ntfyKind = defineReceiverKind({
  kind: 'ntfy',
  description: 'ntfy topic: a push notification per group, priority and tags from the severity.',
  fields: {
    url: reasoned(
      (u) =>
        httpsUrlReason(u) ??
        (/^[-_A-Za-z0-9]{1,64}$/.test(topicOf(u).topic)
          ? undefined
          : 'the URL must end with a topic name (letters, digits, - and _)'),
      'Topic URL, e.g. https://ntfy.sh/ledger-oncall (secret: whoever knows it can subscribe).',
    ),
    ...secretFields('token', 'access token (tk_...) or other bearer token'),
  },
  check: (raw, issue) => checkSecretPair(raw, 'token', issue, false),
  resolve: (raw, file) => {
    const token = secretOf(raw, 'token', file);
    return { url: raw.url, ...(token ? { token } : {}) };
  },
  secrets: (s) => ({ url: { source: { value: s.url }, what: 'topic URL' }, token: slot(s.token, 'token') }),
  build: (s, secret): NtfySpec => {
    const token = secret('token');
    return { url: s.url, ...(token ? { token } : {}) };
  },
  parts: (spec, n, ctx): OutboundRequest[] => [
    {
      url: topicOf(spec.url).root,
      headers: { 'content-type': 'application/json', ...(spec.token ? { authorization: `Bearer ${spec.token}` } : {}) },
      body: JSON.stringify(ntfyMessage(topicOf(spec.url).topic, n, ctx)),
      label: `ntfy ${spec.name}`,
    },
  ],
  send: (req, io) => httpSend(io.client, io.timeoutMs)(req),
  dryCheck: checkNtfy,
});

/** `https://ntfy.sh/ops` -> root `https://ntfy.sh/`, topic `ops` (a server under a path keeps it). */
export function topicOf(url: string): { root: string; topic: string } {
  const u = new URL(url);
  const parts = u.pathname.replace(/\/+$/, '').split('/');
  const topic = parts.pop() ?? '';
  u.pathname = `${parts.join('/')}/`;
  u.search = '';
  u.hash = '';
  return { root: u.href, topic };
}

export function ntfyMessage(topic: string, n: Notification, ctx: PayloadContext): object {
  const alerts = alertTexts(n);
  const severity = n.alerts.find((a) => a.status === 'firing')?.labels.severity ?? n.alerts[0]?.labels.severity ?? '';
  const firing = n.status === 'firing';
  const line = (a: AlertText) =>
    `${a.firing ? 'FIRING' : 'RESOLVED'}: ${a.summary} (${a.severity})${a.description ? `\n${a.description}` : ''}`;
  const render = (shown: readonly AlertText[], more: number) =>
    [...shown.map(line), ...(more > 0 ? [andMore(more)] : [])].join('\n\n');
  const page = statusPageUrl(ctx);
  return {
    topic,
    title: titleWithSubjects(n),
    message: fitItems(alerts, render, NTFY_MAX_BYTES - 512, (s) => Buffer.byteLength(s)),
    priority: firing ? (PRIORITY[severity] ?? 3) : 2,
    tags: firing ? [TAGS[severity] ?? 'bell'] : ['white_check_mark'],
    markdown: false,
    ...(page ? { click: page } : {}),
    ...(alerts[0]?.runbookUrl
      ? { actions: [{ action: 'view', label: 'Runbook', url: alerts[0].runbookUrl, clear: false }] }
      : {}),
  };
}

/** GET <topic>/auth: whether the token may use the topic (401/403), sending nothing. */
async function checkNtfy(spec: NtfySpec & ReceiverBase, io: DryCheckIO): Promise<DryCheckResult> {
  const label = `ntfy ${spec.name} (auth)`;
  const headers = spec.token ? { authorization: `Bearer ${spec.token}` } : undefined;
  const out = await io.http({
    method: 'GET',
    url: `${spec.url.replace(/\/+$/, '')}/auth`,
    ...(headers ? { headers } : {}),
    timeoutMs: io.timeoutMs,
    maxBytes: 64 * 1024,
    label,
  });
  if (out.ok) return { receiver: spec.name, ok: true, detail: 'ntfy reachable and the topic accepted' };
  if (out.status === 401 || out.status === 403)
    return { receiver: spec.name, ok: false, detail: `${label}: rejects the credentials (HTTP ${out.status})` };
  if (out.status !== undefined)
    return {
      receiver: spec.name,
      ok: true,
      detail: `reachable (HTTP ${out.status} to the auth check; credentials not checked)`,
    };
  return { receiver: spec.name, ok: false, detail: `${label}: unreachable (${out.message})` };
}
