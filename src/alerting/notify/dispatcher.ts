// The notification pipeline as Alertmanager runs it: alerts are routed (first match wins),
// grouped by `groupBy`, and each group notifies its receivers after `groupWait`, then at most
// every `groupInterval` when it changed, and every `repeatInterval` while it still fires.
// Receivers of the `alertmanager` kind instead get every alert pushed as Prometheus does
// (re-sent each minute, resolved ones for 15 minutes). Pure: time comes in as arguments.
import type { AlertInstance } from '../rules/instance.js';
import { labelsKey, pickLabels } from '../rules/labels.js';
import type { Notification, NotifiedAlert } from './notification.js';
import { Router, type ResolvedRoute, type RoutingSpec } from './routing.js';
import type { Labels } from '../rules/types.js';
import { splitMuted } from './mute.js';

/** What mutes these labels at `now` (mute.ts: a maintenance window's name or a silence's id), if anything. */
export type SilenceCheck = (labels: Labels, now: number) => string | undefined;

export interface DispatcherOptions {
  routing: RoutingSpec;
  /** Receivers that take pushes of every alert (Prometheus -> Alertmanager style), not groups. */
  pushReceivers?: ReadonlySet<string>;
  isSilenced?: SilenceCheck;
  /** Narrows or widens the receivers a route picked for an alert (definitions' `delivery`). */
  deliver?: (labels: Labels, routed: readonly string[]) => readonly string[];
  /** Prometheus: alerts are re-sent to Alertmanager every minute, resolved ones for 15 minutes. */
  resendDelayMs?: number;
  resolvedResendMs?: number;
}

/** What was last sent to a receiver for a group (Alertmanager's notification log). */
export interface LogEntry {
  firing: string[];
  resolved: string[];
  at: number;
}

/** A notification handed to a receiver's queue and not yet reported delivered or failed. */
export interface Unconfirmed {
  /** Every alert it carried: until it is confirmed, the receiver may believe any of them fires. */
  alerts: string[];
  at: number;
}

export interface DispatcherState {
  log: Record<string, LogEntry>;
  pushed: Record<string, { at: number; status: 'firing' | 'resolved' }>;
  /** Saved so that a process killed before a delivery was confirmed sends it again on start. */
  unconfirmed?: Record<string, Unconfirmed>;
}

interface Group {
  key: string;
  route: ResolvedRoute;
  receivers: readonly string[];
  labels: Labels;
  alerts: Map<string, NotifiedAlert>;
  nextFlushAt: number;
}

const SEP = '\u0000';

export class NotificationDispatcher {
  private opts!: DispatcherOptions;
  private router!: Router;
  private readonly groups = new Map<string, Group>();
  private log = new Map<string, LogEntry>();
  private pushed = new Map<string, { at: number; status: 'firing' | 'resolved' }>();
  /** receiver + group key -> the last notification handed out and not yet confirmed. */
  private unconfirmed = new Map<string, Unconfirmed>();
  /** Resolved instances already flushed from their group (id -> resolvedAt). */
  private readonly flushedResolved = new Map<string, number>();
  private current: AlertInstance[] = [];

  constructor(opts: DispatcherOptions) {
    this.configure(opts);
  }

  configure(opts: DispatcherOptions): void {
    this.opts = opts;
    this.router = new Router(opts.routing);
  }

  /** What mutes an alert now (for listings). */
  silencedBy(labels: Labels, now: number): string | undefined {
    return this.opts.isSilenced?.(labels, now);
  }

  /** Takes the engine's current instances (pending ones are not notified). */
  update(instances: readonly AlertInstance[], now: number): void {
    this.current = instances.filter((i) => i.state !== 'pending');
    const live = new Set(this.current.map((i) => i.id));
    for (const id of this.flushedResolved.keys()) if (!live.has(id)) this.flushedResolved.delete(id);
    const placed = new Map<string, string>();
    for (const inst of this.current) {
      if (inst.state === 'resolved' && this.flushedResolved.get(inst.id) === inst.resolvedAt) continue;
      const route = this.router.route(inst.labels);
      const receivers = route ? this.receiversOf(inst.labels, route) : [];
      if (!route || !receivers.some((r) => !this.isPush(r))) continue;
      const groupLabels = pickLabels(inst.labels, route.groupBy);
      // Alerts whose delivery differs from their route's form a group of their own.
      const same = receivers.length === route.receivers.length && receivers.every((r, i) => r === route.receivers[i]);
      const key = `${route.key}:{${labelsKey(groupLabels)}}${same ? '' : `>${receivers.join(',')}`}`;
      let g = this.groups.get(key);
      if (!g)
        this.groups.set(
          key,
          (g = { key, route, receivers, labels: groupLabels, alerts: new Map(), nextFlushAt: now + route.groupWaitMs }),
        );
      else Object.assign(g, { route, receivers }); // a reload may have changed its timing or receivers
      g.alerts.set(inst.id, toNotified(inst));
      placed.set(inst.id, key);
    }
    // An alert leaves every group it is no longer routed to (gone, or moved by a reload's routes):
    // the old group's receivers are not reminded of it again, and its log entry ends at its flush.
    for (const g of this.groups.values())
      for (const id of g.alerts.keys()) if (placed.get(id) !== g.key) g.alerts.delete(id);
  }

  /** Notifications due at `now`. */
  tick(now: number): Notification[] {
    const out: Notification[] = [];
    for (const g of [...this.groups.values()]) if (g.nextFlushAt <= now) out.push(...this.flush(g, now));
    out.push(...this.pushDue(now));
    return out;
  }

  /** When tick() next has work (undefined: none); what pushDue skips (silenced...) is never due. */
  nextDueAt(now: number): number | undefined {
    let next: number | undefined;
    const consider = (t: number) => (next = next === undefined ? t : Math.min(next, t));
    for (const g of this.groups.values()) consider(g.nextFlushAt);
    for (const receiver of this.opts.pushReceivers ?? []) {
      for (const inst of this.current) {
        const at = this.pushDueAt(inst, receiver, now);
        if (at !== undefined) consider(at);
      }
    }
    return next;
  }

  /** When an alert is next pushed to a push receiver; undefined: not while things stay as they are. */
  private pushDueAt(inst: AlertInstance, receiver: string, now: number): number | undefined {
    if (inst.state === 'resolved' && now - (inst.resolvedAt ?? now) >= this.resolvedResendMs()) return undefined;
    if (
      !this.routedTo(inst, receiver) ||
      this.opts.isSilenced?.(inst.labels, inst.state === 'resolved' ? (inst.resolvedAt ?? now) : now)
    )
      return undefined;
    const last = this.pushed.get(receiver + SEP + inst.id);
    if (!last || last.status !== inst.state) return now;
    return last.at + this.resendDelayMs();
  }

  /**
   * A send that failed for good, or was cut short by a shutdown: the next flush (after a restart
   * too, through the state file) tells the receiver again, resolved alerts included.
   */
  noteFailed(n: Notification): void {
    if (this.isPush(n.receiver)) {
      for (const a of n.alerts) this.pushed.delete(n.receiver + SEP + a.id);
      return;
    }
    this.markUntold(
      this.settle(n),
      n.alerts.map((a) => a.id),
    );
    for (const a of n.alerts) if (a.status === 'resolved') this.flushedResolved.delete(a.id);
  }

  /** The receiver accepted `n`: it no longer needs sending after a restart. */
  noteDelivered(n: Notification): void {
    this.settle(n);
  }

  /** `n` has an outcome: it is no longer unconfirmed (unless a later flush replaced it). Returns its log key. */
  private settle(n: Notification): string {
    const key = n.receiver + SEP + n.groupKey;
    if (this.unconfirmed.get(key)?.at === n.createdAt) this.unconfirmed.delete(key);
    return key;
  }

  exportState(): DispatcherState {
    return {
      log: Object.fromEntries(this.log),
      pushed: Object.fromEntries(this.pushed),
      unconfirmed: Object.fromEntries(this.unconfirmed),
    };
  }

  /**
   * Restores a saved state. A notification that was handed out but never confirmed (the process
   * was killed while it was queued, in flight or waiting for a retry) counts as failed: it is
   * sent again, so a kill loses no page (it may arrive twice).
   */
  importState(state: DispatcherState): void {
    const current = (logKey: string) => {
      const at = logKey.indexOf(SEP) + 1;
      return logKey.slice(0, at) + this.router.currentKey(logKey.slice(at));
    };
    this.log = new Map(Object.entries(state.log).map(([k, e]) => [current(k), e]));
    this.pushed = new Map(Object.entries(state.pushed));
    this.unconfirmed = new Map();
    for (const [key, u] of Object.entries(state.unconfirmed ?? {})) this.markUntold(current(key), u.alerts);
  }

  /** When each receiver last got a notification for the group an alert is in (confirmed ones only). */
  lastNotifiedAt(inst: AlertInstance): number | undefined {
    let last: number | undefined;
    for (const [key, entry] of this.log) {
      if (entry.at === 0 || this.unconfirmed.get(key)?.at === entry.at) continue;
      if (entry.firing.includes(inst.id) || entry.resolved.includes(inst.id)) last = Math.max(last ?? 0, entry.at);
    }
    for (const [key, p] of this.pushed) if (key.endsWith(SEP + inst.id)) last = Math.max(last ?? 0, p.at);
    return last;
  }

  /** As far as we know the receiver still believes these fire: due at the group's next flush (at 0). */
  private markUntold(logKey: string, alertIds: string[]): void {
    this.log.set(logKey, { firing: alertIds, resolved: [], at: 0 });
  }

  private flush(g: Group, now: number): Notification[] {
    // The mute stage (mute.ts); a resolved alert counts as muted when it resolved inside a window.
    const silenced = (a: NotifiedAlert) =>
      this.opts.isSilenced?.(a.labels, a.status === 'resolved' ? (a.endsAt ?? now) : now) !== undefined;
    const all = [...g.alerts.values()];
    const out: Notification[] = [];
    for (const receiver of g.receivers) {
      if (this.isPush(receiver)) continue;
      const logKey = receiver + SEP + g.key;
      const entry = this.log.get(logKey);
      const { firing, held, resolved } = splitMuted(all, new Set(entry?.firing), silenced);
      if (!needsUpdate(entry, firing, held, resolved, g.route, now)) continue;
      const alerts = g.route.sendResolved ? [...firing, ...resolved] : firing;
      const stillFiring = firing.length + held.length > 0;
      if (alerts.length > 0) {
        out.push({
          receiver,
          groupKey: g.key,
          groupLabels: g.labels,
          status: stillFiring ? 'firing' : 'resolved',
          alerts,
          createdAt: now,
        });
        this.unconfirmed.set(logKey, { alerts: alerts.map((a) => a.id), at: now });
      }
      if (!stillFiring) this.log.delete(logKey);
      else
        this.log.set(logKey, {
          firing: [...firing, ...held].map((a) => a.id),
          resolved: resolved.map((a) => a.id),
          at: alerts.length > 0 ? now : (entry?.at ?? now),
        });
    }
    for (const a of g.alerts.values()) {
      if (a.status !== 'resolved') continue;
      this.flushedResolved.set(a.id, a.endsAt ?? now);
      g.alerts.delete(a.id);
    }
    if (g.alerts.size === 0) this.groups.delete(g.key);
    else g.nextFlushAt = now + g.route.groupIntervalMs;
    return out;
  }

  private pushDue(now: number): Notification[] {
    const out: Notification[] = [];
    for (const receiver of this.opts.pushReceivers ?? []) {
      const due: NotifiedAlert[] = [];
      for (const inst of this.current) {
        const at = this.pushDueAt(inst, receiver, now);
        if (at === undefined || at > now) continue;
        due.push(toNotified(inst));
        this.pushed.set(receiver + SEP + inst.id, {
          at: now,
          status: inst.state === 'resolved' ? 'resolved' : 'firing',
        });
      }
      const live = new Set(this.current.map((i) => receiver + SEP + i.id));
      for (const key of this.pushed.keys())
        if (key.startsWith(receiver + SEP) && !live.has(key)) this.pushed.delete(key);
      if (due.length > 0) {
        out.push({
          receiver,
          groupKey: 'push',
          groupLabels: {},
          status: due.some((a) => a.status === 'firing') ? 'firing' : 'resolved',
          alerts: due,
          createdAt: now,
        });
      }
    }
    return out;
  }

  private routedTo(inst: AlertInstance, receiver: string): boolean {
    const route = this.router.route(inst.labels);
    return route ? this.receiversOf(inst.labels, route).includes(receiver) : false;
  }

  private receiversOf(labels: Labels, route: ResolvedRoute): readonly string[] {
    return this.opts.deliver ? this.opts.deliver(labels, route.receivers) : route.receivers;
  }

  private isPush(receiver: string): boolean {
    return this.opts.pushReceivers?.has(receiver) ?? false;
  }

  private resendDelayMs = (): number => this.opts.resendDelayMs ?? 60_000;
  private resolvedResendMs = (): number => this.opts.resolvedResendMs ?? 15 * 60_000;
}

/**
 * Alertmanager's dedup rule: notify on new firing alerts, on all resolved, on newly resolved
 * (sendResolved), or on repeat. `held`: told alerts a window now mutes (no repeat for them alone).
 */
function needsUpdate(
  entry: LogEntry | undefined,
  firing: NotifiedAlert[],
  held: NotifiedAlert[],
  resolved: NotifiedAlert[],
  route: ResolvedRoute,
  now: number,
): boolean {
  if (!entry) return firing.length > 0;
  const before = new Set(entry.firing);
  if (firing.some((a) => !before.has(a.id))) return true;
  if (firing.length === 0 && held.length === 0) return entry.firing.length > 0;
  const resolvedBefore = new Set(entry.resolved);
  if (route.sendResolved && resolved.some((a) => !resolvedBefore.has(a.id))) return true;
  return firing.length > 0 && now - entry.at >= route.repeatIntervalMs;
}

function toNotified(inst: AlertInstance): NotifiedAlert {
  return {
    id: inst.id,
    status: inst.state === 'resolved' ? 'resolved' : 'firing',
    labels: inst.labels,
    annotations: inst.annotations,
    startsAt: inst.firingSince ?? inst.activeAt,
    ...(inst.state === 'resolved' ? { endsAt: inst.resolvedAt } : {}),
  };
}
