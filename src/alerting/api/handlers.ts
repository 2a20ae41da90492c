// The answers of the Alertmanager API v2 (and the exporter's ack) that routes.ts mounts, loaded at
// the first request to one of them. While the config has no `alerting:` section every one but
// /api/v2/status answers 503 saying so.
import { jsonReply, type EndpointRequest, type Reply } from '../../web/route.js';
import { muting } from '../notify/mute.js';
import { Router } from '../notify/routing.js';
import {
  listAlertGroupsV2,
  listAlertsV2,
  statusV2,
  type AlertsApiDeps,
  type FiringAlert,
  type StatusFacts,
} from './alertsV2.js';
import type { ApiAnswer, ApiCall } from './call.js';
import type { AlertingApiLive, ApiEndpoint, ApiHandler } from './endpoints.js';
import { deleteSilence, getSilence, listSilences, postAck, postSilence, type SilenceApiDeps } from './silencesV2.js';

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

/** Each endpoint's answer, by name. */
export function apiHandlers(
  live: () => AlertingApiLive | undefined,
  status: StatusFacts,
): Record<ApiEndpoint, ApiHandler> {
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
  return {
    status: () => reply(statusV2(status)),
    alerts: on(alerts, listAlertsV2),
    alertGroups: on(alerts, listAlertGroupsV2),
    silences: on(silences, listSilences),
    postSilence: on(silences, postSilence),
    getSilence: on(silences, getSilence),
    deleteSilence: on(silences, deleteSilence),
    ack: on(silences, postAck),
  };
}
