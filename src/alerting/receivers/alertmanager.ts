// Alertmanager's own formats: the /api/v2/alerts push (as Prometheus sends it) and the webhook
// payload (version "4") that Alertmanager sends to webhook receivers, so existing consumers work.
import { basicCredential } from '../../redact.js';
import type { Notification, NotifiedAlert } from '../notification.js';
import type { OutboundRequest, PayloadContext, ReceiverSpec } from './types.js';

/** Prometheus: a firing alert is valid for 4 resend delays (4 min) unless re-sent. */
export const PUSH_VALIDITY_MS = 4 * 60_000;
const ZERO_TIME = '0001-01-01T00:00:00Z';

const iso = (ms: number) => new Date(ms).toISOString();
const JSON_HEADERS = { 'content-type': 'application/json' };

export function alertmanagerRequests(spec: ReceiverSpec & { kind: 'alertmanager' }, n: Notification, ctx: PayloadContext): OutboundRequest[] {
  const body = JSON.stringify(
    n.alerts.map((a) => ({
      labels: a.labels,
      annotations: a.annotations,
      startsAt: iso(a.startsAt),
      endsAt: iso(a.status === 'resolved' ? (a.endsAt ?? ctx.now) : ctx.now + PUSH_VALIDITY_MS),
      generatorURL: generatorUrl(ctx, a),
    })),
  );
  const headers: Record<string, string> = { ...JSON_HEADERS };
  const authorization = alertmanagerAuthorization(spec);
  if (authorization) headers.authorization = authorization;
  return spec.urls.map((base, i) => ({
    url: `${base.replace(/\/+$/, '')}/api/v2/alerts`,
    headers,
    body,
    label: `alertmanager ${spec.name} url #${i + 1}`,
  }));
}

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

export function webhookRequests(spec: ReceiverSpec & { kind: 'webhook' }, n: Notification, ctx: PayloadContext): OutboundRequest[] {
  return [{ url: spec.url, headers: { ...JSON_HEADERS, ...spec.headers }, body: JSON.stringify(webhookPayload(spec.name, n, ctx)), label: `webhook ${spec.name}` }];
}

/** The exporter's alert listing (what generated the alert). */
export function generatorUrl(ctx: PayloadContext, a: Pick<NotifiedAlert, 'labels'>): string {
  return `${ctx.externalUrl.replace(/\/+$/, '')}/api/alerts?alertname=${encodeURIComponent(a.labels.alertname ?? '')}`;
}

/** Label pairs every map shares. */
function common(maps: ReadonlyArray<Readonly<Record<string, string>>>): Record<string, string> {
  const [first, ...rest] = maps;
  if (!first) return {};
  return Object.fromEntries(Object.entries(first).filter(([k, v]) => rest.every((m) => m[k] === v)));
}

/** The Authorization header an Alertmanager receiver sends: its bearer token, else its basic auth. */
export function alertmanagerAuthorization(auth: { bearerToken?: string; basicAuth?: { username: string; password: string } }): string | undefined {
  if (auth.bearerToken) return `Bearer ${auth.bearerToken}`;
  if (auth.basicAuth) return `Basic ${basicCredential(auth.basicAuth.username, auth.basicAuth.password)}`;
  return undefined;
}
