// The watched service providers' row of the watch dashboard (`watch.services`).
import type { WatchPanelRow } from './types.js';

export const SERVICE_PANELS: readonly WatchPanelRow[] = [
  {
    title: 'Services',
    panels: [
      {
        type: 'state-timeline',
        title: 'Registered and active',
        description:
          'Each service of a watched provider: active in the registry (1), registered but inactive or gone (0) ' +
          '(ledger_watch_service_active, ledger_watch_service_registered).',
        unit: 'none',
        queries: [
          {
            expr:
              'min by (network, name, provider, service_type) (ledger_watch_service_registered{$NET}) * ' +
              'on (network, name, provider, service_type) group_left ' +
              'min by (network, name, provider, service_type) (ledger_watch_service_active{$NET})',
            legend: '{{name}} {{service_type}}',
          },
        ],
        bool: [
          ['INACTIVE OR GONE', 'red'],
          ['active', 'green'],
        ],
      },
      {
        type: 'timeseries',
        title: 'Endpoint answer time',
        description:
          'Seconds each probed endpoint took to answer (ledger_watch_service_endpoint_duration_seconds, with ' +
          'probeEndpoint); ledger_watch_service_endpoint_up says whether it answered below HTTP 400.',
        unit: 's',
        min: 0,
        queries: [
          {
            metric: 'ledger_watch_service_endpoint_duration_seconds',
            by: 'service_type',
            legend: '{{name}} {{service_type}}',
          },
        ],
      },
    ],
  },
];
