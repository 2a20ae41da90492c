// Opsgenie Alert API v2: create an alert while a group fires, close it by alias when it resolves.
// The alias is a hash of the group's identity (as PagerDuty's dedup_key), so restarts and replicas
// of one config address the same alert; Opsgenie de-duplicates creates by alias. GenieKey auth;
// the US API by default, https://api.eu.opsgenie.com for the EU instance.
import type { Notification } from '../notify/notification.js';
import { httpSend } from '../notify/sender.js';
import { checkSecretPair, httpsUrl, secretFields, secretOf, slot } from './fields.js';
import { defineReceiverKind, type OutboundRequest, type PayloadContext, type ReceiverBase } from './kind.js';
import { alertTexts, andMore, clip, fitItems, statusPageUrl, title } from './message.js';
import { dedupKey } from './pagerduty.js';
import { checkReachable } from './reachable.js';

export const DEFAULT_OPSGENIE_URL = 'https://api.opsgenie.com';
/** Opsgenie's limits: message 130 characters, description 15,000. */
const MAX_MESSAGE = 130;
const MAX_DESCRIPTION = 15_000;
const PRIORITIES: Record<string, string> = { critical: 'P1', warning: 'P3', info: 'P5' };

export interface OpsgenieSpec {
  apiKey: string;
  url: string;
}

export const opsgenieKind = defineReceiverKind({
  kind: 'opsgenie',
  description: 'Opsgenie Alert API v2: one alert per group (alias from its labels), closed when it resolves.',
  fields: {
    ...secretFields('apiKey', 'API key of an Opsgenie API integration'),
    url: httpsUrl('Opsgenie API: https://api.opsgenie.com (US) or https://api.eu.opsgenie.com (EU).').default(
      DEFAULT_OPSGENIE_URL,
    ),
  },
  check: (raw, issue) => checkSecretPair(raw, 'apiKey', issue),
  resolve: (raw, file) => ({ apiKey: secretOf(raw, 'apiKey', file)!, url: raw.url.replace(/\/+$/, '') }),
  secrets: (s) => ({ apiKey: slot(s.apiKey, 'API key') }),
  build: (s, secret): OpsgenieSpec => ({ url: s.url, apiKey: secret('apiKey')! }),
  // The header a server may echo back.
  derivedSecrets: (spec) => [`GenieKey ${spec.apiKey}`],
  parts: opsgenieRequests,
  send: (req, io) => httpSend(io.client, io.timeoutMs)(req),
  dryCheck: (spec, io) => checkReachable('opsgenie', spec.name, spec.url, io),
});

/** The alias of a group's alert: stable across restarts and replicas (Opsgenie allows 512 characters). */
export const opsgenieAlias = (groupKey: string): string => dedupKey(groupKey);

function opsgenieRequests(spec: OpsgenieSpec & ReceiverBase, n: Notification, ctx: PayloadContext): OutboundRequest[] {
  const headers = { 'content-type': 'application/json', authorization: `GenieKey ${spec.apiKey}` };
  const alias = opsgenieAlias(n.groupKey);
  const label = `opsgenie ${spec.name}`;
  if (n.status === 'resolved') {
    const url = `${spec.url}/v2/alerts/${alias}/close?identifierType=alias`;
    return [
      { url, headers, body: JSON.stringify({ source: 'ledger-fleet-exporter', note: clip(title(n), 1000) }), label },
    ];
  }
  return [{ url: `${spec.url}/v2/alerts`, headers, body: JSON.stringify(opsgeniePayload(n, ctx)), label }];
}

export function opsgeniePayload(n: Notification, ctx: PayloadContext): object {
  const firing = n.alerts.filter((a) => a.status === 'firing');
  const severity = firing[0]?.labels.severity ?? '';
  const lines = alertTexts(n).map(
    (a) =>
      `${a.firing ? 'FIRING' : 'RESOLVED'}: ${a.summary} ` +
      `(${a.severity})${a.description ? `\n${a.description}` : ''}${a.runbookUrl ? `\nRunbook: ${a.runbookUrl}` : ''}`,
  );
  const page = statusPageUrl(ctx);
  const render = (shown: readonly string[], more: number) =>
    [...shown, ...(more > 0 ? [andMore(more)] : []), ...(page ? [`Fleet status page: ${page}`] : [])].join('\n\n');
  return {
    message: clip(title(n), MAX_MESSAGE),
    alias: opsgenieAlias(n.groupKey),
    description: fitItems(lines, render, MAX_DESCRIPTION),
    priority: PRIORITIES[severity] ?? 'P3',
    source: 'ledger-fleet-exporter',
    tags: ['ledger-fleet-exporter', ...Object.values(n.groupLabels).map((v) => clip(v, 50))].slice(0, 20),
    details: Object.fromEntries(Object.entries(n.groupLabels).map(([k, v]) => [k, clip(v, 500)])),
    ...(n.groupLabels.network ? { entity: clip(n.groupLabels.network, 512) } : {}),
  };
}
