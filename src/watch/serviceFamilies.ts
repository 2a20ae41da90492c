// The ledger_watch_service_* families of watched providers (labels network, name, provider and
// service_type): one sample per service of the provider, registered now or seen before.
import { escapeLabelValue } from '../exposition/grammar.js';
import type { WatchFamily } from './families.js';
import type { ServiceView, WatchedProviderView } from './types.js';

export const SERVICE_METRICS = {
  registered: 'ledger_watch_service_registered',
  active: 'ledger_watch_service_active',
  endpointUp: 'ledger_watch_service_endpoint_up',
  endpointDuration: 'ledger_watch_service_endpoint_duration_seconds',
  endpointCertExpiry: 'ledger_watch_service_endpoint_cert_expiry_timestamp_seconds',
} as const;

const bool = (b: boolean | undefined) => (b === undefined ? undefined : b ? 1 : 0);

function family(name: string, help: string, value: (s: ServiceView) => number | undefined): WatchFamily {
  return {
    name,
    help,
    type: 'gauge',
    kinds: ['provider'],
    extraLabels: ['service_type'],
    samples: (v) =>
      ((v as WatchedProviderView).services ?? []).map((s): [string, number | undefined] => [
        `,service_type="${escapeLabelValue(s.serviceType)}"`,
        value(s),
      ]),
  };
}

export const SERVICE_FAMILIES: readonly WatchFamily[] = [
  family(
    SERVICE_METRICS.registered,
    'Whether the service of the watched provider is in the registry (1), or was seen there and is gone (0).',
    (s) => bool(s.registered),
  ),
  family(SERVICE_METRICS.active, 'Whether the registered service is active (1) or not (0).', (s) =>
    s.registered ? bool(s.active) : undefined,
  ),
  family(
    SERVICE_METRICS.endpointUp,
    "Whether the service's endpoint answered a GET below HTTP 400 (1) or not (0); with probeEndpoint, absent when " +
      'the endpoint was refused (not http/https, or a private address).',
    (s) => (s.probe?.refused ? undefined : bool(s.probe?.up)),
  ),
  family(
    SERVICE_METRICS.endpointDuration,
    "Seconds the last GET of the service's endpoint took, to the end of its answer.",
    (s) => s.probe?.durationSeconds,
  ),
  family(
    SERVICE_METRICS.endpointCertExpiry,
    "Unix time the certificate of the service's https endpoint expires, as its last probe's handshake showed.",
    (s) => s.probe?.certExpirySeconds,
  ),
];
