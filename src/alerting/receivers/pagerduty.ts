// PagerDuty Events API v2: one trigger per group while it fires, one resolve when it resolved.
// The dedup_key is a hash of the group's identity (route and group labels), so restarts and
// replicas of the same config address the same incident.
import { createHash } from 'node:crypto';
import type { Notification } from '../notify/notification.js';
import { httpSend } from '../notify/sender.js';
import { checkSecretPair, secretFields, secretOf, slot, url } from './fields.js';
import { defineReceiverKind, type OutboundRequest, type PayloadContext } from './kind.js';
import { checkReachable } from './reachable.js';

export const DEFAULT_PAGERDUTY_URL = 'https://events.pagerduty.com/v2/enqueue';
const PD_SEVERITIES: Record<string, string> = { critical: 'critical', warning: 'warning', info: 'info' };
const MAX_SUMMARY = 1024;

export interface PagerdutySpec {
  routingKey: string;
  url: string;
}

export const pagerdutyKind = defineReceiverKind({
  kind: 'pagerduty',
  description: "PagerDuty Events API v2; dedup_key from the group's labels.",
  fields: {
    ...secretFields('routingKey', 'Events API v2 integration (routing) key'),
    url: url('Events API v2 endpoint.').default(DEFAULT_PAGERDUTY_URL),
  },
  check: (raw, issue) => checkSecretPair(raw, 'routingKey', issue),
  resolve: (raw, file) => ({ routingKey: secretOf(raw, 'routingKey', file)!, url: raw.url }),
  secrets: (s) => ({ routingKey: slot(s.routingKey, 'routing key') }),
  build: (s, secret): PagerdutySpec => ({ url: s.url, routingKey: secret('routingKey')! }),
  parts: (spec, n, ctx): OutboundRequest[] => [
    {
      url: spec.url,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(pagerdutyPayload(spec, n, ctx)),
      label: `pagerduty ${spec.name}`,
    },
  ],
  send: (req, io) => httpSend(io.client, io.timeoutMs)(req),
  dryCheck: (spec, io) => checkReachable('pagerduty', spec.name, spec.url, io),
});

export function dedupKey(groupKey: string): string {
  return createHash('sha256').update(groupKey).digest('hex');
}

export function pagerdutyPayload(spec: PagerdutySpec, n: Notification, ctx: PayloadContext): object {
  const firing = n.alerts.filter((a) => a.status === 'firing');
  const first = firing[0] ?? n.alerts[0];
  const summary =
    `[${n.status.toUpperCase()}:${firing.length}] ` +
    `${first?.annotations.summary ?? first?.labels.alertname ?? 'alert'}${
      n.alerts.length > 1 ? ` (+${n.alerts.length - 1} more)` : ''
    }`;
  const links = [{ href: `${ctx.externalUrl.replace(/\/+$/, '')}/`, text: 'Fleet status page' }];
  if (first?.annotations.runbook_url && /^https?:\/\//.test(first.annotations.runbook_url))
    links.push({ href: first.annotations.runbook_url, text: 'Runbook' });
  const base = {
    routing_key: spec.routingKey,
    dedup_key: dedupKey(n.groupKey),
    client: 'ledger-fleet-exporter',
    client_url: ctx.externalUrl,
  };
  if (n.status === 'resolved') return { ...base, event_action: 'resolve' };
  return {
    ...base,
    event_action: 'trigger',
    payload: {
      summary: summary.length > MAX_SUMMARY ? `${summary.slice(0, MAX_SUMMARY - 1)}…` : summary,
      source: n.groupLabels.network ?? n.groupLabels.node ?? 'ledger-fleet-exporter',
      severity: PD_SEVERITIES[first?.labels.severity ?? ''] ?? 'error',
      group: n.groupLabels.alertname,
      custom_details: {
        group: n.groupLabels,
        firing: firing.map((a) => a.labels),
        resolved: n.alerts.filter((a) => a.status === 'resolved').map((a) => a.labels),
      },
    },
    links,
  };
}
