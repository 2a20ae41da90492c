// The push stage for receivers of the `alertmanager` kind: every alert routed to them is pushed
// as Prometheus pushes to Alertmanager (which groups and dedups itself), not in groups: again each
// `resendDelayMs` while it fires, a resolved one for `resolvedResendMs` after it resolved. A muted
// alert is not pushed (a resolved one counts as muted when it resolved inside a window). Pure:
// time comes in as arguments.
import type { AlertInstance } from '../rules/instance.js';
import type { Labels } from '../rules/types.js';
import { notifiedAlert, type Notification, type NotifiedAlert } from './notification.js';

/** What was last pushed of an alert to a receiver. */
export interface PushRecord {
  at: number;
  status: 'firing' | 'resolved';
}

export interface PushTiming {
  /** Prometheus: alerts are re-sent to Alertmanager every minute, resolved ones for 15 minutes. */
  resendDelayMs?: number;
  resolvedResendMs?: number;
}

/** What the push stage asks of the route and mute stages. */
export interface PushRules extends PushTiming {
  receivers: Iterable<string>;
  routedTo(labels: Labels, receiver: string): boolean;
  /** Muted at the time that counts (mute.ts isMuted). */
  muted(inst: AlertInstance, now: number): boolean;
}

const SEP = '\u0000';

export class PushStage {
  /** receiver + alert id -> its last push. */
  private pushed = new Map<string, PushRecord>();

  /** When an alert is next pushed to a receiver; undefined: not while things stay as they are. */
  dueAt(inst: AlertInstance, receiver: string, rules: PushRules, now: number): number | undefined {
    if (inst.state === 'resolved' && now - (inst.resolvedAt ?? now) >= (rules.resolvedResendMs ?? 15 * 60_000))
      return undefined;
    if (!rules.routedTo(inst.labels, receiver) || rules.muted(inst, now)) return undefined;
    const last = this.pushed.get(receiver + SEP + inst.id);
    if (!last || last.status !== inst.state) return now;
    return last.at + (rules.resendDelayMs ?? 60_000);
  }

  /** The earliest push due (undefined: none while things stay as they are). */
  nextDueAt(instances: readonly AlertInstance[], rules: PushRules, now: number): number | undefined {
    let next: number | undefined;
    for (const receiver of rules.receivers)
      for (const inst of instances) {
        const at = this.dueAt(inst, receiver, rules, now);
        if (at !== undefined) next = next === undefined ? at : Math.min(next, at);
      }
    return next;
  }

  /** One notification per receiver with the alerts due at `now`; forgets pushes of alerts gone. */
  due(instances: readonly AlertInstance[], rules: PushRules, now: number): Notification[] {
    const out: Notification[] = [];
    for (const receiver of rules.receivers) {
      const due: NotifiedAlert[] = [];
      for (const inst of instances) {
        const at = this.dueAt(inst, receiver, rules, now);
        if (at === undefined || at > now) continue;
        due.push(notifiedAlert(inst));
        this.pushed.set(receiver + SEP + inst.id, {
          at: now,
          status: inst.state === 'resolved' ? 'resolved' : 'firing',
        });
      }
      const live = new Set(instances.map((i) => receiver + SEP + i.id));
      for (const key of this.pushed.keys())
        if (key.startsWith(receiver + SEP) && !live.has(key)) this.pushed.delete(key);
      if (due.length > 0)
        out.push({
          receiver,
          groupKey: 'push',
          groupLabels: {},
          status: due.some((a) => a.status === 'firing') ? 'firing' : 'resolved',
          alerts: due,
          createdAt: now,
        });
    }
    return out;
  }

  /** A push that failed: its alerts are pushed again at the next tick. */
  failed(n: Notification): void {
    for (const a of n.alerts) this.pushed.delete(n.receiver + SEP + a.id);
  }

  /** When an alert was last pushed to any receiver; undefined: never. */
  lastPushedAt(alertId: string): number | undefined {
    let last: number | undefined;
    for (const [key, p] of this.pushed) if (key.endsWith(SEP + alertId)) last = Math.max(last ?? 0, p.at);
    return last;
  }

  export(): Record<string, PushRecord> {
    return Object.fromEntries(this.pushed);
  }

  restore(pushed: Record<string, PushRecord>): void {
    this.pushed = new Map(Object.entries(pushed));
  }
}
