// Mounts the Alertmanager API v2 (and the exporter's ack) on the HTTP router: reads follow the
// server's auth, writes go through its write gate (alerting.api.writers). While the config has
// no `alerting:` section every one answers 503 saying so. The answers' code (handlers.ts) is
// loaded at the first request: a daemon nobody asks never loads it.
import { get, write, type Endpoint, type EndpointRequest, type Reply } from '../../web/route.js';
import type { StatusFacts } from './alertsV2.js';
import type { AlertingApiLive, ApiEndpoint, ApiHandler } from './endpoints.js';

export type { AlertingApiLive } from './endpoints.js';

export function alertingApiRoutes(live: () => AlertingApiLive | undefined, status: StatusFacts): Endpoint[] {
  let handlers: Promise<Record<ApiEndpoint, ApiHandler>> | undefined;
  const on =
    (name: ApiEndpoint) =>
    async (req: EndpointRequest): Promise<Reply> => {
      handlers ??= import('./handlers.js').then((m) => m.apiHandlers(live, status));
      return (await handlers)[name](req);
    };
  const json = { kind: 'json' } as const;
  return [
    get('/api/v2/status', on('status')),
    get('/api/v2/alerts', on('alerts')),
    get('/api/v2/alerts/groups', on('alertGroups')),
    get('/api/v2/silences', on('silences')),
    write('POST', '/api/v2/silences', on('postSilence'), json),
    get('/api/v2/silence/{id}', on('getSilence')),
    write('DELETE', '/api/v2/silence/{id}', on('deleteSilence')),
    write('POST', '/api/v1/alerts/ack', on('ack'), json),
  ];
}
