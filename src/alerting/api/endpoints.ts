// What the Alertmanager API v2 endpoints read while alerting runs, and their names (routes.ts mounts
// them, handlers.ts answers them).
import type { Clock } from '../../clock/clock.js';
import type { EndpointRequest, Reply } from '../../web/route.js';
import type { MuteSources } from '../notify/mute.js';
import type { RoutingSpec } from '../notify/routing.js';
import type { AlertInstance } from '../rules/instance.js';
import type { SilenceKeeper } from '../silences/keeper.js';

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

export type ApiEndpoint =
  'status' | 'alerts' | 'alertGroups' | 'silences' | 'postSilence' | 'getSilence' | 'deleteSilence' | 'ack';

export type ApiHandler = (req: EndpointRequest) => Reply | Promise<Reply>;
