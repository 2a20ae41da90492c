// Webhook: the payload Alertmanager sends to its webhook receivers (version "4"), so existing
// consumers work. The whole URL and every header value are secrets.
import * as z from 'zod';
import type { Notification } from '../notify/notification.js';
import { httpSend } from '../notify/sender.js';
import { generatorUrl } from './alertmanager.js';
import { url } from './fields.js';
import { defineReceiverKind, type PayloadContext, type SecretSlot } from './kind.js';
import { checkReachable } from './reachable.js';

const ZERO_TIME = '0001-01-01T00:00:00Z';
const iso = (ms: number) => new Date(ms).toISOString();

export interface WebhookSpec {
  url: string;
  headers: Record<string, string>;
}

export const webhookKind = defineReceiverKind({
  kind: 'webhook',
  description: 'POSTs the Alertmanager webhook payload (version "4").',
  fields: {
    url: url('Receives the Alertmanager webhook payload (version "4"). Secret: never logged.'),
    headers: z
      .record(z.string().regex(/^[A-Za-z0-9-]+$/, 'invalid header name'), z.string())
      .default({})
      .meta({ description: 'Extra headers (secrets), e.g. authorization.' }),
  },
  resolve: (raw): WebhookSpec => ({ url: raw.url, headers: raw.headers }),
  secrets: (s) => {
    const out: Record<string, SecretSlot | undefined> = { url: { source: { value: s.url }, what: 'URL' } };
    for (const [name, value] of Object.entries(s.headers))
      if (value.length > 0) out[`header ${name}`] = { source: { value }, what: `header ${name}` };
    return out;
  },
  build: (s): WebhookSpec => ({ url: s.url, headers: s.headers }),
  parts: (spec, n, ctx) => [
    {
      url: spec.url,
      headers: { 'content-type': 'application/json', ...spec.headers },
      body: JSON.stringify(webhookPayload(spec.name, n, ctx)),
      label: `webhook ${spec.name}`,
    },
  ],
  send: (req, io) => httpSend(io.client, io.timeoutMs)(req),
  dryCheck: (spec, io) => checkReachable('webhook', spec.name, spec.url, io),
});

export function webhookPayload(receiver: string, n: Notification, ctx: PayloadContext): object {
  return {
    version: '4',
    groupKey: n.groupKey,
    truncatedAlerts: 0,
    status: n.status,
    receiver,
    groupLabels: n.groupLabels,
    commonLabels: common(n.alerts.map((a) => a.labels)),
    commonAnnotations: common(n.alerts.map((a) => a.annotations)),
    externalURL: ctx.externalUrl,
    alerts: n.alerts.map((a) => ({
      status: a.status,
      labels: a.labels,
      annotations: a.annotations,
      startsAt: iso(a.startsAt),
      endsAt: a.status === 'resolved' && a.endsAt !== undefined ? iso(a.endsAt) : ZERO_TIME,
      generatorURL: generatorUrl(ctx, a),
      fingerprint: a.id.slice(0, 16),
    })),
  };
}

/** Label pairs every map shares. */
function common(maps: ReadonlyArray<Readonly<Record<string, string>>>): Record<string, string> {
  const [first, ...rest] = maps;
  if (!first) return {};
  return Object.fromEntries(Object.entries(first).filter(([k, v]) => rest.every((m) => m[k] === v)));
}
