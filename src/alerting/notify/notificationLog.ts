// The notification log (Alertmanager's nflog): per receiver and group, what was last sent
// (dedupStage.ts decides from it), and the notification handed to a queue and not yet confirmed.
// An unconfirmed one, failed or cut short by a kill, counts as never told: the receiver may
// believe any of its alerts fires, so the group's next flush tells it again (at least once).
import type { LogEntry } from './dedupStage.js';
import type { Notification } from './notification.js';

export type { LogEntry };

/** A notification handed to a receiver's queue and not yet reported delivered or failed. */
export interface Unconfirmed {
  /** Every alert it carried: until it is confirmed, the receiver may believe any of them fires. */
  alerts: string[];
  at: number;
}

/** The log as saved in the state file (keys: receiver, NUL, group key). */
export interface NotificationLogState {
  log: Record<string, LogEntry>;
  unconfirmed?: Record<string, Unconfirmed>;
}

const SEP = '\u0000';
const keyOf = (receiver: string, groupKey: string) => receiver + SEP + groupKey;

export class NotificationLog {
  private log = new Map<string, LogEntry>();
  /** receiver + group key -> the last notification handed out and not yet confirmed. */
  private unconfirmed = new Map<string, Unconfirmed>();

  entry(receiver: string, groupKey: string): LogEntry | undefined {
    return this.log.get(keyOf(receiver, groupKey));
  }

  /** A flush's outcome: the receiver's new entry (undefined: none), and the notification sent, if any. */
  record(receiver: string, groupKey: string, entry: LogEntry | undefined, sent: Notification | undefined): void {
    const key = keyOf(receiver, groupKey);
    if (sent) this.unconfirmed.set(key, { alerts: sent.alerts.map((a) => a.id), at: sent.createdAt });
    if (entry) this.log.set(key, entry);
    else this.log.delete(key);
  }

  /** The receiver accepted `n`: it no longer needs sending after a restart. */
  delivered(n: Notification): void {
    this.settle(n);
  }

  /** `n` failed for good or was cut short: its receiver is told its alerts again at the next flush. */
  failed(n: Notification): void {
    this.markUntold(
      this.settle(n),
      n.alerts.map((a) => a.id),
    );
  }

  /** `n` has an outcome: it is no longer unconfirmed (unless a later flush replaced it). Returns its key. */
  private settle(n: Notification): string {
    const key = keyOf(n.receiver, n.groupKey);
    if (this.unconfirmed.get(key)?.at === n.createdAt) this.unconfirmed.delete(key);
    return key;
  }

  /** As far as we know the receiver still believes these fire: due at the group's next flush (at 0). */
  private markUntold(key: string, alertIds: string[]): void {
    this.log.set(key, { firing: alertIds, resolved: [], at: 0 });
  }

  /** When a receiver was last told of an alert by a confirmed notification; undefined: never. */
  lastToldAt(alertId: string): number | undefined {
    let last: number | undefined;
    for (const [key, entry] of this.log) {
      if (entry.at === 0 || this.unconfirmed.get(key)?.at === entry.at) continue;
      if (entry.firing.includes(alertId) || entry.resolved.includes(alertId)) last = Math.max(last ?? 0, entry.at);
    }
    return last;
  }

  export(): Required<NotificationLogState> {
    return { log: Object.fromEntries(this.log), unconfirmed: Object.fromEntries(this.unconfirmed) };
  }

  /**
   * Restores a saved log, each group key read in today's form (`currentKey`). A notification that
   * was handed out but never confirmed (killed while queued, in flight or waiting for a retry)
   * counts as failed: it is sent again, so a kill loses no page (it may arrive twice).
   */
  restore(state: NotificationLogState, currentKey: (groupKey: string) => string): void {
    const current = (key: string) => {
      const at = key.indexOf(SEP) + 1;
      return key.slice(0, at) + currentKey(key.slice(at));
    };
    this.log = new Map(Object.entries(state.log).map(([k, e]) => [current(k), e]));
    this.unconfirmed = new Map();
    for (const [key, u] of Object.entries(state.unconfirmed ?? {})) this.markUntold(current(key), u.alerts);
  }
}
