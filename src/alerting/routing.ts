// Routes: the first route whose `match` fits an alert's labels decides its receivers and its
// grouping and timing (Alertmanager semantics; a route's own values override the defaults).
import { compileLabelMatch, type LabelMatch, type LabelMatcher } from './maintenanceMatch.js';
import type { Labels } from './types.js';

export interface GroupTiming {
  groupWaitMs: number;
  groupIntervalMs: number;
  repeatIntervalMs: number;
  sendResolved: boolean;
}

export interface RouteSpec extends Partial<GroupTiming> {
  match?: LabelMatch;
  receivers: readonly string[];
  groupBy?: readonly string[];
}

export interface RoutingSpec extends GroupTiming {
  groupBy: readonly string[];
  /** Empty: one route sending everything to every receiver. */
  routes: readonly RouteSpec[];
  receivers: readonly string[];
}

export interface ResolvedRoute extends GroupTiming {
  index: number;
  receivers: readonly string[];
  groupBy: readonly string[];
}

export const DEFAULT_TIMING: GroupTiming = { groupWaitMs: 30_000, groupIntervalMs: 300_000, repeatIntervalMs: 4 * 3_600_000, sendResolved: true };

export class Router {
  private readonly routes: Array<{ matches: LabelMatcher; route: ResolvedRoute }>;

  constructor(spec: RoutingSpec) {
    const specs: readonly RouteSpec[] = spec.routes.length > 0 ? spec.routes : [{ receivers: spec.receivers }];
    this.routes = specs.map((r, index) => ({
      matches: compileLabelMatch(r.match ?? {}),
      route: {
        index,
        receivers: r.receivers,
        groupBy: r.groupBy ?? spec.groupBy,
        groupWaitMs: r.groupWaitMs ?? spec.groupWaitMs,
        groupIntervalMs: r.groupIntervalMs ?? spec.groupIntervalMs,
        repeatIntervalMs: r.repeatIntervalMs ?? spec.repeatIntervalMs,
        sendResolved: r.sendResolved ?? spec.sendResolved,
      },
    }));
  }

  /** The first matching route, or undefined (no route matches: the alert is not sent). */
  route(labels: Labels): ResolvedRoute | undefined {
    return this.routes.find((r) => r.matches(labels))?.route;
  }
}
