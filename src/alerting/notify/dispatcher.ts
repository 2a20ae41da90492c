// The notification pipeline, Alertmanager's dispatch/ and notify/ as stages, each a module of one
// concern; this file only wires them:
//   route (routeStage.ts) -> group (groupStage.ts: groupWait, groupInterval) -> mute (mute.ts:
//   maintenance windows and silences) -> dedup (dedupStage.ts against notificationLog.ts:
//   repeatInterval, resolved only where firing went, unconfirmed sends) -> send (the runtime hands
//   the notifications to queue.ts, and reports their outcomes back here).
// Receivers of the `alertmanager` kind take the push stage (pushStage.ts) instead of groups.
// Pure: time comes in as arguments.
import type { AlertInstance } from '../rules/instance.js';
import type { Labels } from '../rules/types.js';
import { dedup } from './dedupStage.js';
import { GroupStage, type AlertGroup } from './groupStage.js';
import { isMuted, splitMuted, type SilenceCheck } from './mute.js';
import type { Notification, NotifiedAlert } from './notification.js';
import { NotificationLog, type LogEntry, type Unconfirmed } from './notificationLog.js';
import { PushStage, type PushRecord, type PushRules, type PushTiming } from './pushStage.js';
import { RouteStage, type RouteStageOptions } from './routeStage.js';

export type { LogEntry, SilenceCheck, Unconfirmed };

export interface DispatcherOptions extends RouteStageOptions, PushTiming {
  isSilenced?: SilenceCheck;
}

/** The pipeline's durable state: the notification log and the pushes (the state file's `dispatcher`). */
export interface DispatcherState {
  log: Record<string, LogEntry>;
  pushed: Record<string, PushRecord>;
  /** Saved so that a process killed before a delivery was confirmed sends it again on start. */
  unconfirmed?: Record<string, Unconfirmed>;
}

export class NotificationDispatcher {
  private opts!: DispatcherOptions;
  private routes!: RouteStage;
  private push!: PushRules;
  private readonly groups = new GroupStage();
  private readonly log = new NotificationLog();
  private readonly pushes = new PushStage();
  private current: AlertInstance[] = [];

  constructor(opts: DispatcherOptions) {
    this.configure(opts);
  }

  configure(opts: DispatcherOptions): void {
    const routes = new RouteStage(opts);
    const check = opts.isSilenced;
    this.opts = opts;
    this.routes = routes;
    this.push = {
      receivers: routes.pushReceivers(),
      routedTo: (labels, receiver) => routes.routedTo(labels, receiver),
      muted: (inst, now) => isMuted(check, inst.labels, inst.state === 'resolved' ? inst.resolvedAt : undefined, now),
      ...(opts.resendDelayMs !== undefined ? { resendDelayMs: opts.resendDelayMs } : {}),
      ...(opts.resolvedResendMs !== undefined ? { resolvedResendMs: opts.resolvedResendMs } : {}),
    };
  }

  /** What mutes an alert now (for listings). */
  silencedBy(labels: Labels, now: number): string | undefined {
    return this.opts.isSilenced?.(labels, now);
  }

  /** Takes the engine's current instances (pending ones are not notified). */
  update(instances: readonly AlertInstance[], now: number): void {
    this.current = instances.filter((i) => i.state !== 'pending');
    this.groups.update(this.current, (labels) => this.routes.placeInGroup(labels), now);
  }

  /** Notifications due at `now`. */
  tick(now: number): Notification[] {
    const out: Notification[] = [];
    for (const g of this.groups.due(now)) out.push(...this.flush(g, now));
    out.push(...this.pushes.due(this.current, this.push, now));
    return out;
  }

  /** When tick() next has work (undefined: none); what the push stage skips (silenced...) is never due. */
  nextDueAt(now: number): number | undefined {
    const times = [this.groups.nextFlushAt(), this.pushes.nextDueAt(this.current, this.push, now)];
    const known = times.filter((t): t is number => t !== undefined);
    return known.length > 0 ? Math.min(...known) : undefined;
  }

  /**
   * A send that failed for good, or was cut short by a shutdown: the next flush (after a restart
   * too, through the state file) tells the receiver again, resolved alerts included.
   */
  noteFailed(n: Notification): void {
    if (this.routes.isPush(n.receiver)) {
      this.pushes.failed(n);
      return;
    }
    this.log.failed(n);
    for (const a of n.alerts) if (a.status === 'resolved') this.groups.retell(a.id);
  }

  /** The receiver accepted `n`: it no longer needs sending after a restart. */
  noteDelivered(n: Notification): void {
    this.log.delivered(n);
  }

  exportState(): DispatcherState {
    const { log, unconfirmed } = this.log.export();
    return { log, pushed: this.pushes.export(), unconfirmed };
  }

  /** Restores a saved state; what was handed out and never confirmed is sent again (notificationLog.ts). */
  importState(state: DispatcherState): void {
    this.log.restore(state, (groupKey) => this.routes.currentKey(groupKey));
    this.pushes.restore(state.pushed);
  }

  /** When each receiver last got a notification for the group an alert is in (confirmed ones only). */
  lastNotifiedAt(inst: AlertInstance): number | undefined {
    const times = [this.log.lastToldAt(inst.id), this.pushes.lastPushedAt(inst.id)];
    const known = times.filter((t): t is number => t !== undefined);
    return known.length > 0 ? Math.max(...known) : undefined;
  }

  /** One group's flush: for each of its receivers, the mute stage, then the dedup stage. */
  private flush(g: AlertGroup, now: number): Notification[] {
    const check = this.opts.isSilenced;
    const muted = (a: NotifiedAlert) => isMuted(check, a.labels, a.status === 'resolved' ? a.endsAt : undefined, now);
    const alerts = [...g.alerts.values()];
    const out: Notification[] = [];
    for (const receiver of g.receivers) {
      if (this.routes.isPush(receiver)) continue;
      const entry = this.log.entry(receiver, g.key);
      const step = dedup(entry, splitMuted(alerts, new Set(entry?.firing), muted), g.route, now);
      if (!step) continue;
      const sent = step.send && { receiver, groupKey: g.key, groupLabels: g.labels, ...step.send, createdAt: now };
      if (sent) out.push(sent);
      this.log.record(receiver, g.key, step.entry, sent);
    }
    this.groups.flushed(g, now);
    return out;
  }
}
