// Mounts the Alertmanager API v2 (and the exporter's ack) on the HTTP router: reads follow the
// server's auth, writes go through its write gate (alerting.api.writers). While the config has
// no `alerting:` section every one answers 503 saying so.
import type { Clock } from '../../clock/clock.js';
import { get, jsonReply, write, type EndpointRequest, type Endpoint, type Reply } from '../../web/route.js';
import { muting, type MuteSources } from '../notify/mute.js';
import { Router, type RoutingSpec } from '../notify/routing.js';
import type { AlertInstance } from '../rules/instance.js';
import type { SilenceKeeper } from '../silences/keeper.js';
import {
  listAlertGroupsV2,
  listAlertsV2,
  statusV2,
  type AlertsApiDeps,
  type FiringAlert,
  type StatusFacts,
} from './alertsV2.js';
import type { ApiAnswer, ApiCall } from './call.js';
import { deleteSilence, getSilence, listSilences, postAck, postSilence, type SilenceApiDeps } from './silencesV2.js';

/** What the API reads while alerting runs. */
export interface AlertingApiLive {
  keeper: SilenceKeeper;
  active(): readonly AlertInstance[];
  routing(): RoutingSpec;
  evaluationIntervalMs(): number;
  mute: MuteSources;
  clock: Clock;
  externalUrl: string;
}

/** The firing alerts with their receivers and what mutes them, times on the wall clock. */
export function firingAlerts(live: AlertingApiLive): FiringAlert[] {
  const router = new Router(live.routing());
  const { clock } = live;
  const wallNow = clock.wall();
  const out: FiringAlert[] = [];
  for (const i of live.active()) {
    if (i.state !== 'firing') continue;
    const route = router.route(i.labels);
    out.push({
      fingerprint: i.id,
      labels: i.labels,
      annotations: i.annotations,
      startsAt: wallNow - (clock.mono() - (i.firingSince ?? i.activeAt)),
      receivers: route?.receivers ?? [],
      groupBy: route?.groupBy ?? [],
      routeKey: route?.key ?? '',
      muting: muting(live.mute, i.labels, wallNow),
    });
  }
  return out;
}

const OFF: Reply = jsonReply(503, 'built-in alerting is off: the config has no alerting: section');

function reply(a: ApiAnswer): Reply {
  if (a.body === undefined) return { status: a.status, contentType: 'application/json', body: '' };
  return jsonReply(a.status, a.body);
}

const callOf = (req: EndpointRequest): ApiCall => ({
  path: req.path,
  params: req.params,
  body: req.body,
  user: req.user,
  headers: req.headers,
});

export function alertingApiRoutes(live: () => AlertingApiLive | undefined, status: StatusFacts): Endpoint[] {
  const silences = (): SilenceApiDeps | undefined => {
    const l = live();
    return l && { silences: l.keeper.store, wallNow: () => l.clock.wall(), saved: () => l.keeper.saved() };
  };
  const alerts = (): AlertsApiDeps | undefined => {
    const l = live();
    return (
      l && {
        firing: () => firingAlerts(l),
        wallNow: () => l.clock.wall(),
        resolveAfterMs: () => 4 * l.evaluationIntervalMs(),
        generatorUrl: l.externalUrl,
      }
    );
  };
  const on =
    <D>(deps: () => D | undefined, f: (d: D, c: ApiCall) => ApiAnswer | Promise<ApiAnswer>) =>
    async (req: EndpointRequest): Promise<Reply> => {
      const d = deps();
      return d ? reply(await f(d, callOf(req))) : OFF;
    };
  const json = { kind: 'json' } as const;
  return [
    get('/api/v2/status', () => reply(statusV2(status))),
    get('/api/v2/alerts', on(alerts, listAlertsV2)),
    get('/api/v2/alerts/groups', on(alerts, listAlertGroupsV2)),
    get('/api/v2/silences', on(silences, listSilences)),
    write('POST', '/api/v2/silences', on(silences, postSilence), json),
    get('/api/v2/silence/{id}', on(silences, getSilence)),
    write('DELETE', '/api/v2/silence/{id}', on(silences, deleteSilence)),
    write('POST', '/api/v1/alerts/ack', on(silences, postAck), json),
  ];
}
