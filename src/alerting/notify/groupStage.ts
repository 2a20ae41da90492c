// The group stage (Alertmanager's aggregation groups): alerts of one route with the same
// `groupBy` labels form a group; a new group is due after its route's `groupWait`, then every
// `groupInterval` while it holds alerts. A resolved alert leaves its group at the flush that
// told of it, and is not placed again while it stays resolved. Pure: time comes in as arguments.
import type { AlertInstance } from '../rules/instance.js';
import { labelsKey, pickLabels } from '../rules/labels.js';
import type { Labels } from '../rules/types.js';
import { notifiedAlert, type NotifiedAlert } from './notification.js';
import type { Placement } from './routeStage.js';
import type { ResolvedRoute } from './routing.js';

/** The route and receivers of an alert's group; undefined: the alert is in no group. */
export type GroupPlacer = (labels: Labels) => Placement | undefined;

export interface AlertGroup {
  /** The route's key, the group labels, and the receivers when a delivery rule changed them. */
  readonly key: string;
  route: ResolvedRoute;
  receivers: readonly string[];
  readonly labels: Labels;
  readonly alerts: Map<string, NotifiedAlert>;
  nextFlushAt: number;
}

export class GroupStage {
  private readonly groups = new Map<string, AlertGroup>();
  /** Resolved instances already flushed from their group (id -> resolvedAt). */
  private readonly flushedResolved = new Map<string, number>();

  /** Places the firing and resolved instances (not pending ones) into their groups. */
  update(instances: readonly AlertInstance[], place: GroupPlacer, now: number): void {
    const live = new Set(instances.map((i) => i.id));
    for (const id of this.flushedResolved.keys()) if (!live.has(id)) this.flushedResolved.delete(id);
    const placed = new Map<string, string>();
    for (const inst of instances) {
      if (inst.state === 'resolved' && this.flushedResolved.get(inst.id) === inst.resolvedAt) continue;
      const p = place(inst.labels);
      if (!p) continue;
      const g = this.groupFor(inst.labels, p, now);
      g.alerts.set(inst.id, notifiedAlert(inst));
      placed.set(inst.id, g.key);
    }
    // An alert leaves every group it is no longer routed to (gone, or moved by a reload's routes):
    // the old group's receivers are not reminded of it again, and its log entry ends at its flush.
    for (const g of this.groups.values())
      for (const id of g.alerts.keys()) if (placed.get(id) !== g.key) g.alerts.delete(id);
  }

  private groupFor(labels: Labels, { route, receivers }: Placement, now: number): AlertGroup {
    const groupLabels = pickLabels(labels, route.groupBy);
    // Alerts whose delivery differs from their route's form a group of their own.
    const same = receivers.length === route.receivers.length && receivers.every((r, i) => r === route.receivers[i]);
    const key = `${route.key}:{${labelsKey(groupLabels)}}${same ? '' : `>${receivers.join(',')}`}`;
    const g = this.groups.get(key);
    if (g) return Object.assign(g, { route, receivers }); // a reload may have changed its timing or receivers
    const created: AlertGroup = {
      key,
      route,
      receivers,
      labels: groupLabels,
      alerts: new Map(),
      nextFlushAt: now + route.groupWaitMs,
    };
    this.groups.set(key, created);
    return created;
  }

  /** Groups whose flush is due at `now`. */
  due(now: number): AlertGroup[] {
    return [...this.groups.values()].filter((g) => g.nextFlushAt <= now);
  }

  /** After a flush: its resolved alerts leave; an empty group ends, another waits `groupInterval`. */
  flushed(g: AlertGroup, now: number): void {
    for (const a of g.alerts.values()) {
      if (a.status !== 'resolved') continue;
      this.flushedResolved.set(a.id, a.endsAt ?? now);
      g.alerts.delete(a.id);
    }
    if (g.alerts.size === 0) this.groups.delete(g.key);
    else g.nextFlushAt = now + g.route.groupIntervalMs;
  }

  /** The earliest flush of any group (undefined: no group). */
  nextFlushAt(): number | undefined {
    let next: number | undefined;
    for (const g of this.groups.values()) next = next === undefined ? g.nextFlushAt : Math.min(next, g.nextFlushAt);
    return next;
  }

  /** A resolve whose notice failed: the alert is placed again at the next update, so it is told again. */
  retell(alertId: string): void {
    this.flushedResolved.delete(alertId);
  }
}
