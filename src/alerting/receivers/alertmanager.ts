// Alertmanager's own API: the /api/v2/alerts push, as Prometheus sends it, to every URL (one part
// each, retried on its own); the dry check reads /api/v2/status with the same credentials.
import * as z from 'zod';
import { basicCredential } from '../../redact.js';
import type { Notification, NotifiedAlert } from '../notify/notification.js';
import { httpSend } from '../notify/sender.js';
import { baseUrl, checkSecretPair, secretFields, secretOf, slot } from './fields.js';
import {
  defineReceiverKind,
  type DryCheckIO,
  type DryCheckResult,
  type OutboundRequest,
  type PayloadContext,
  type ReceiverBase,
} from './kind.js';

/** Prometheus: a firing alert is valid for 4 resend delays (4 min) unless re-sent. */
export const PUSH_VALIDITY_MS = 4 * 60_000;

const iso = (ms: number) => new Date(ms).toISOString();

export interface AlertmanagerSpec {
  urls: string[];
  bearerToken?: string;
  basicAuth?: { username: string; password: string };
}

export const alertmanagerKind = defineReceiverKind({
  kind: 'alertmanager',
  description: 'Pushes to Alertmanager /api/v2/alerts, as Prometheus does.',
  push: true,
  fields: {
    urls: z
      .array(baseUrl('Alertmanager base URL; alerts go to <url>/api/v2/alerts.'))
      .min(1, 'at least one URL')
      .meta({ description: 'Alertmanager base URLs; each gets every alert (as Prometheus sends to each).' }),
    ...secretFields('bearerToken', 'bearer token'),
    basicAuth: z
      .strictObject({
        username: z.string().min(1).meta({ description: 'Basic auth user name.' }),
        ...secretFields('password', 'basic auth password', z.string()),
      })
      .optional()
      .meta({ description: 'Basic auth instead of a bearer token.' }),
  },
  check: (raw, issue) => {
    checkSecretPair(raw, 'bearerToken', issue, false);
    if (raw.basicAuth && (raw.bearerToken !== undefined || raw.bearerTokenFile !== undefined))
      issue('set either a bearer token or basicAuth, not both');
    checkSecretPair(raw.basicAuth, 'password', issue);
  },
  resolve: (raw, file) => {
    const bearerToken = secretOf(raw, 'bearerToken', file);
    const password = raw.basicAuth ? secretOf(raw.basicAuth, 'password', file) : undefined;
    return {
      urls: raw.urls,
      ...(bearerToken ? { bearerToken } : {}),
      ...(raw.basicAuth && password ? { basicAuth: { username: raw.basicAuth.username, password } } : {}),
    };
  },
  secrets: (s) => ({
    bearerToken: slot(s.bearerToken, 'bearer token'),
    password: slot(s.basicAuth?.password, 'password'),
  }),
  build: (s, secret): AlertmanagerSpec => {
    const bearerToken = secret('bearerToken');
    const password = secret('password');
    return {
      urls: s.urls,
      ...(bearerToken ? { bearerToken } : {}),
      ...(s.basicAuth && password !== undefined ? { basicAuth: { username: s.basicAuth.username, password } } : {}),
    };
  },
  // The header a server may echo back (decoding to user:password).
  derivedSecrets: (spec) => (spec.basicAuth ? [alertmanagerAuthorization({ basicAuth: spec.basicAuth })!] : []),
  parts: alertmanagerRequests,
  send: (req, io) => httpSend(io.client, io.timeoutMs)(req),
  dryCheck: checkAlertmanager,
});

function alertmanagerRequests(
  spec: AlertmanagerSpec & ReceiverBase,
  n: Notification,
  ctx: PayloadContext,
): OutboundRequest[] {
  const body = JSON.stringify(
    n.alerts.map((a) => ({
      labels: a.labels,
      annotations: a.annotations,
      startsAt: iso(a.startsAt),
      endsAt: iso(a.status === 'resolved' ? (a.endsAt ?? ctx.now) : ctx.now + PUSH_VALIDITY_MS),
      generatorURL: generatorUrl(ctx, a),
    })),
  );
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const authorization = alertmanagerAuthorization(spec);
  if (authorization) headers.authorization = authorization;
  return spec.urls.map((base, i) => ({
    url: `${base.replace(/\/+$/, '')}/api/v2/alerts`,
    headers,
    body,
    label: `alertmanager ${spec.name} url #${i + 1}`,
  }));
}

/** GET <url>/api/v2/status: Alertmanager answers it without side effects; 401/403 means the credentials are refused. */
async function checkAlertmanager(spec: AlertmanagerSpec & ReceiverBase, io: DryCheckIO): Promise<DryCheckResult> {
  const headers: Record<string, string> = {};
  const authorization = alertmanagerAuthorization(spec);
  if (authorization) headers.authorization = authorization;
  const problems: string[] = [];
  for (const [i, base] of spec.urls.entries()) {
    const label = `alertmanager ${spec.name} url #${i + 1}`;
    const out = await io.http({
      method: 'GET',
      url: `${base.replace(/\/+$/, '')}/api/v2/status`,
      headers,
      timeoutMs: io.timeoutMs,
      maxBytes: 1 << 20,
      label,
    });
    if (out.ok) continue;
    if (out.status === 401 || out.status === 403)
      problems.push(`${label}: rejects the credentials (HTTP ${out.status})`);
    else if (out.status !== undefined) problems.push(`${label}: answers HTTP ${out.status}`);
    else problems.push(`${label}: unreachable (${out.message})`);
  }
  return problems.length === 0
    ? { receiver: spec.name, ok: true, detail: 'Alertmanager reachable and credentials accepted' }
    : { receiver: spec.name, ok: false, detail: problems.join('; ') };
}

/** The exporter's alert listing (what generated the alert). */
export function generatorUrl(ctx: PayloadContext, a: Pick<NotifiedAlert, 'labels'>): string {
  return `${ctx.externalUrl.replace(/\/+$/, '')}/api/alerts?alertname=${encodeURIComponent(a.labels.alertname ?? '')}`;
}

/** The Authorization header an Alertmanager receiver sends: its bearer token, else its basic auth. */
export function alertmanagerAuthorization(auth: {
  bearerToken?: string;
  basicAuth?: { username: string; password: string };
}): string | undefined {
  if (auth.bearerToken) return `Bearer ${auth.bearerToken}`;
  if (auth.basicAuth) return `Basic ${basicCredential(auth.basicAuth.username, auth.basicAuth.password)}`;
  return undefined;
}
