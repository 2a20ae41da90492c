// The send stage: due notifications into their receivers' queues on the wall clock; one whose
// receiver has no queue fails at once (so it stays due) and the receiver is built again.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/clock/clock.js';
import { ReceiverQueue, type DeliveryReport } from '../../../src/alerting/notify/queue.js';
import type { DeliveryPart } from '../../../src/alerting/receivers/kind.js';
import { handOut, onWallClock } from '../../../src/alerting/notify/sendStage.js';
import type { Notification } from '../../../src/alerting/notify/notification.js';
import { H, T0, told } from './stageAlerts.js';

const note = (receiver: string, at: number): Notification => ({
  receiver,
  groupKey: 'g',
  groupLabels: {},
  status: 'firing',
  alerts: [{ ...told('a'), startsAt: at }],
  createdAt: at,
});

describe('send stage', () => {
  it('queues a notification for its receiver with its times on the wall clock', async () => {
    const clock = new ManualClock(T0);
    clock.step(H); // the wall clock runs an hour ahead of the monotonic one
    const parts: DeliveryPart[] = [];
    const reports: DeliveryReport[] = [];
    const queue = new ReceiverQueue({
      receiver: 'hook',
      send: (part) => {
        parts.push(part);
        return Promise.resolve({ ok: true, retryable: false, status: 200, message: 'HTTP 200' });
      },
      sleep: () => Promise.resolve(),
      now: () => clock.mono(),
      onReport: (r) => reports.push(r),
    });
    const spec = { name: 'hook', kind: 'webhook', url: 'http://127.0.0.1:9/hook', headers: {} };
    handOut([note('hook', T0)], T0, {
      receivers: { get: () => ({ queue, spec }), whyUnusable: () => '', retry: () => undefined },
      clock,
      externalUrl: 'http://exporter:9715',
      rebuildGapMs: 60_000,
      report: (r) => reports.push(r),
    });
    await queue.drain(1_000);
    expect(reports.map((r) => r.result)).toEqual(['success']);
    const body = JSON.parse(String((parts[0] as DeliveryPart & { body: string }).body)) as {
      alerts: Array<{ startsAt: string }>;
    };
    expect(body.alerts[0]!.startsAt).toBe(new Date(T0 + H).toISOString());
  });

  it('fails a notification whose receiver has no queue, saying why, and asks for the receiver again', () => {
    const reports: DeliveryReport[] = [];
    const retried: Array<[string, number]> = [];
    handOut([note('pager', T0)], T0, {
      receivers: {
        get: () => undefined,
        whyUnusable: (name) => `cannot read receiver ${name} routing key from /run/key`,
        retry: (name, gap) => void retried.push([name, gap]),
      },
      clock: new ManualClock(T0),
      externalUrl: 'http://exporter:9715',
      rebuildGapMs: 30_000,
      report: (r) => reports.push(r),
    });
    expect(reports.map((r) => [r.receiver, r.result, r.attempts, r.message])).toEqual([
      ['pager', 'failure', 0, 'receiver not usable: cannot read receiver pager routing key from /run/key'],
    ]);
    expect(retried).toEqual([['pager', 30_000]]);
  });

  it('moves both times of a resolved alert to the wall clock, and gives a firing one no end', () => {
    const clock = new ManualClock(T0);
    clock.step(H);
    const n = onWallClock({ ...note('x', T0), alerts: [told('a', 'resolved', T0 + 5), told('b')] }, clock);
    expect(n.alerts.map((a) => [a.startsAt - T0, a.endsAt === undefined ? 'none' : a.endsAt - T0])).toEqual([
      [H, H + 5],
      [H, 'none'],
    ]);
  });
});
