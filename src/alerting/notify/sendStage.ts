// The send stage: the dispatcher's due notifications into their receivers' queues (queue.ts sends
// and retries each), with their times on the wall clock as receivers show them. A receiver with
// no queue (its secret could not be read) fails the notification at once, so it stays due in the
// notification log, and is built again at most once per evaluation interval.
import { toWall, type Clock } from '../../clock/clock.js';
import { deliveryParts } from '../receivers/materialize.js';
import type { Notification } from './notification.js';
import type { DeliveryReport } from './queue.js';
import type { ReceiverSet } from './receiverSet.js';

export interface SendStageDeps {
  receivers: Pick<ReceiverSet, 'get' | 'whyUnusable' | 'retry'> | undefined;
  clock: Clock;
  /** Links in notifications (alerting.externalUrl, else the exporter's own address). */
  externalUrl: string;
  /** Least time between two attempts to build a receiver that has no queue. */
  rebuildGapMs: number;
  /** Told of a notification that could not be queued (the queues report the others). */
  report(r: DeliveryReport): void;
}

export function handOut(due: readonly Notification[], now: number, deps: SendStageDeps): void {
  const ctx = { externalUrl: deps.externalUrl, now: toWall(deps.clock, now) };
  for (const n of due) {
    const target = deps.receivers?.get(n.receiver);
    if (!target) {
      deps.report({
        receiver: n.receiver,
        notification: n,
        result: 'failure',
        attempts: 0,
        durationMs: 0,
        message: `receiver not usable: ${deps.receivers?.whyUnusable(n.receiver)}`,
      });
      deps.receivers?.retry(n.receiver, deps.rebuildGapMs);
      continue;
    }
    target.queue.enqueue(n, deliveryParts(target.spec, onWallClock(n, deps.clock), ctx));
  }
}

/** The notification as receivers show it: its times on the wall clock. */
export function onWallClock(n: Notification, clock: Clock): Notification {
  const w = (t: number) => toWall(clock, t);
  return {
    ...n,
    alerts: n.alerts.map((a) => ({
      ...a,
      startsAt: w(a.startsAt),
      ...(a.endsAt !== undefined ? { endsAt: w(a.endsAt) } : {}),
    })),
  };
}
