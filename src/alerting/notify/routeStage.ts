// The route stage: which route and receivers an alert goes to (routing.ts picks the first
// matching route; a definition's `delivery` may change its receivers), and which of those take
// pushes of every alert (the `alertmanager` kind, pushStage.ts) instead of groups.
import type { Labels } from '../rules/types.js';
import { Router, type ResolvedRoute, type RoutingSpec } from './routing.js';

export interface RouteStageOptions {
  routing: RoutingSpec;
  /** Receivers that take pushes of every alert (Prometheus -> Alertmanager style), not groups. */
  pushReceivers?: ReadonlySet<string>;
  /** Narrows or widens the receivers a route picked for an alert (definitions' `delivery`). */
  deliver?: (labels: Labels, routed: readonly string[]) => readonly string[];
}

/** Where an alert goes: its route (grouping and timing) and the receivers it reaches. */
export interface Placement {
  route: ResolvedRoute;
  receivers: readonly string[];
}

export class RouteStage {
  private readonly router: Router;

  constructor(private readonly opts: RouteStageOptions) {
    this.router = new Router(opts.routing);
  }

  /** The alert's route and receivers; undefined when no route matches. */
  place(labels: Labels): Placement | undefined {
    const route = this.router.route(labels);
    if (!route) return undefined;
    return { route, receivers: this.opts.deliver ? this.opts.deliver(labels, route.receivers) : route.receivers };
  }

  /** As place(), for the group stage: undefined also when no receiver takes groups (all push). */
  placeInGroup(labels: Labels): Placement | undefined {
    const p = this.place(labels);
    return p && p.receivers.some((r) => !this.isPush(r)) ? p : undefined;
  }

  routedTo(labels: Labels, receiver: string): boolean {
    return this.place(labels)?.receivers.includes(receiver) ?? false;
  }

  isPush(receiver: string): boolean {
    return this.opts.pushReceivers?.has(receiver) ?? false;
  }

  pushReceivers(): Iterable<string> {
    return this.opts.pushReceivers ?? [];
  }

  /** A saved group key in today's form (Router.currentKey). */
  currentKey(groupKey: string): string {
    return this.router.currentKey(groupKey);
  }
}
