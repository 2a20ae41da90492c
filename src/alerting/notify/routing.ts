// Routes: the first route whose `match` fits an alert's labels decides its receivers and its
// grouping and timing (Alertmanager semantics; a route's own values override the defaults).
import { compileLabelMatch, type LabelMatch, type LabelMatcher } from '../maintenance/match.js';
import { labelsKey } from '../rules/labels.js';
import type { Labels } from '../rules/types.js';

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
  /**
   * The route's identity in group keys (so in the notification log and PagerDuty's dedup_key):
   * its match, as Alertmanager keys a group by its route's matchers. Not its position: adding a
   * route above it must not move its open groups under a new key.
   */
  key: string;
  receivers: readonly string[];
  groupBy: readonly string[];
}

export const DEFAULT_TIMING: GroupTiming = {
  groupWaitMs: 30_000,
  groupIntervalMs: 300_000,
  repeatIntervalMs: 4 * 3_600_000,
  sendResolved: true,
};

export class Router {
  private readonly routes: Array<{ matches: LabelMatcher; route: ResolvedRoute }>;

  constructor(spec: RoutingSpec) {
    const specs: readonly RouteSpec[] = spec.routes.length > 0 ? spec.routes : [{ receivers: spec.receivers }];
    const seen = new Map<string, number>();
    this.routes = specs.map((r, index) => ({
      matches: compileLabelMatch(r.match ?? {}),
      route: {
        index,
        key: routeKey(r.match ?? {}, seen),
        receivers: r.receivers,
        groupBy: r.groupBy ?? spec.groupBy,
        groupWaitMs: r.groupWaitMs ?? spec.groupWaitMs,
        groupIntervalMs: r.groupIntervalMs ?? spec.groupIntervalMs,
        repeatIntervalMs: r.repeatIntervalMs ?? spec.repeatIntervalMs,
        sendResolved: r.sendResolved ?? spec.sendResolved,
      },
    }));
  }

  /**
   * A group key saved when groups were keyed by route position ("1:{...}"), in today's form (the
   * route's match), read against today's routes: an upgrade then neither pages open groups again
   * nor keeps their old entries for good. Other keys are returned as they are.
   */
  currentKey(groupKey: string): string {
    const m = /^(\d+):\{/.exec(groupKey);
    const route = m ? this.routes[Number(m[1])]?.route : undefined;
    return route ? route.key + groupKey.slice(m![1]!.length) : groupKey;
  }

  /** The first matching route, or undefined (no route matches: the alert is not sent). */
  route(labels: Labels): ResolvedRoute | undefined {
    return this.routes.find((r) => r.matches(labels))?.route;
  }
}

/** `{name="value",...}` of a route's match; a second route with the same match gets `#2`, and so on. */
function routeKey(match: LabelMatch, seen: Map<string, number>): string {
  const text = `{${labelsKey(match)}}`;
  const n = (seen.get(text) ?? 0) + 1;
  seen.set(text, n);
  return n === 1 ? text : `${text}#${n}`;
}
