// Alerts on watched providers' services (rule group ledger-fleet-watch), one instance per service
// type, labelled name, network, provider and service_type: inactive, gone from the registry (what
// was seen is kept on disk: a restart neither resolves nor re-fires it), an endpoint that does not
// answer. While the registry cannot be read, every service seen is held as it is.
import { SERVICE_METRICS as S } from '../../../watch/serviceFamilies.js';
import { entriesOf, type ServiceView, type WatchedProviderView } from '../../../watch/types.js';
import { durationWords } from '../format.js';
import type { AlertDefinition, AlertSample, EvalContext, Labels } from '../types.js';
import { watchLabels, WATCH_GROUP, type Verdict } from './watchSupport.js';

const providers = (ctx: EvalContext) => entriesOf(ctx.snapshot.watch, 'provider');
const who = [
  'Service {{ $labels.service_type }} of provider {{ $labels.name }}',
  '({{ $labels.provider }}) on network {{ $labels.network }}',
].join(' ');
const BY = 'name, network, provider, service_type';

const kept = new Map<string, { base: Labels; labels: Labels }>();

function serviceLabels(v: WatchedProviderView, serviceType: string): Labels {
  const base = watchLabels(v);
  const key = `${v.name}\u0000${serviceType}`;
  const k = kept.get(key);
  if (k?.base === base) return k.labels;
  if (kept.size > 100_000) kept.clear();
  const labels = { ...base, service_type: serviceType };
  kept.set(key, { base, labels });
  return labels;
}

/** One sample per service of each provider; a service not known now (registry not read) is held. */
function perService(ctx: EvalContext, verdict: (s: ServiceView) => Verdict): AlertSample[] {
  const out: AlertSample[] = [];
  for (const v of providers(ctx))
    for (const s of v.services ?? []) {
      const r = s.registered === undefined ? undefined : verdict(s);
      if (r === false) continue;
      const labels = serviceLabels(v, s.serviceType);
      out.push(r === undefined ? { labels, value: 0, hold: true } : { labels, value: r });
    }
  return out;
}

export const SERVICE_ALERTS: AlertDefinition[] = [
  {
    name: 'LedgerServiceInactive',
    group: WATCH_GROUP,
    scope: 'watch',
    comment: 'The provider marked the service inactive in the registry (or it was never activated).',
    defaults: { severity: 'warning', forMs: 120_000, keepFiringForMs: 300_000 },
    promql: () => `max by (${BY}) (${S.active} == 0)`,
    summary: () => 'Service {{ $labels.service_type }} of {{ $labels.name }} ({{ $labels.network }}) is inactive',
    description: (p) =>
      `${who} has been registered but inactive for more than ${durationWords(p.forMs)}: clients are not sent to it.`,
    evaluate: (ctx) =>
      perService(ctx, (s) => (!s.registered ? false : s.active === undefined ? undefined : !s.active && 0)),
  },
  {
    name: 'LedgerServiceMissing',
    group: WATCH_GROUP,
    scope: 'watch',
    comment:
      'Seen in the registry before and gone now (what was seen is kept in the alerting state directory, so\n' +
      'a restart neither resolves nor re-fires it). Resolves when the service is registered again, or when\n' +
      'the entry is removed from the config.',
    defaults: { severity: 'critical', forMs: 60_000, keepFiringForMs: 300_000 },
    promql: () => `max by (${BY}) (${S.registered} == 0)`,
    summary: () => 'Service {{ $labels.service_type }} of {{ $labels.name }} ({{ $labels.network }}) left the registry',
    description: () =>
      `${who} was registered and is gone from the service registry: it was removed (or replaced) by a ` +
      `transaction signed with the provider's key.`,
    evaluate: (ctx) => perService(ctx, (s) => !s.registered && 0),
  },
  {
    name: 'LedgerServiceEndpointDown',
    group: WATCH_GROUP,
    scope: 'watch',
    comment: 'Only with probeEndpoint: a GET of the registered endpoint failed or answered HTTP 400 or above.',
    defaults: { severity: 'critical', forMs: 120_000, keepFiringForMs: 300_000 },
    promql: () => `max by (${BY}) (${S.endpointUp} == 0)`,
    summary: () =>
      'Endpoint of service {{ $labels.service_type }} of {{ $labels.name }} ({{ $labels.network }}) is down',
    description: (p) =>
      `${who} is active, but its registered endpoint has not answered for more than ${durationWords(p.forMs)}.`,
    evaluate: (ctx) =>
      perService(ctx, (s) =>
        !s.registered || !s.active || s.probe?.refused ? false : s.probe === undefined ? undefined : !s.probe.up && 0,
      ),
  },
];
