// The notification log: what each receiver was told per group, the sends not yet confirmed, and
// the saved form (the state file's `dispatcher.log` and `dispatcher.unconfirmed`).
import { describe, expect, it } from 'vitest';
import { NotificationLog } from '../../../src/alerting/notify/notificationLog.js';
import type { Notification } from '../../../src/alerting/notify/notification.js';
import { M, T0, told } from './stageAlerts.js';

const note = (ids: string[], at: number, groupKey = 'g'): Notification => ({
  receiver: 'slack',
  groupKey,
  groupLabels: {},
  status: 'firing',
  alerts: ids.map((id) => told(id)),
  createdAt: at,
});
const entry = (firing: string[], at: number) => ({ firing, resolved: [], at });

describe('notification log', () => {
  it('keeps a send unconfirmed until its receiver accepts it; only confirmed sends count as told', () => {
    const log = new NotificationLog();
    const n = note(['a'], T0);
    log.record('slack', 'g', entry(['a'], T0), n);
    expect(log.entry('slack', 'g')).toEqual(entry(['a'], T0));
    expect(log.export().unconfirmed).toEqual({ 'slack\u0000g': { alerts: ['a'], at: T0 } });
    expect(log.lastToldAt('a')).toBeUndefined();
    log.delivered(n);
    expect(log.export().unconfirmed).toEqual({});
    expect(log.lastToldAt('a')).toBe(T0);
    expect(log.lastToldAt('b')).toBeUndefined();
  });

  it('a failed send makes its alerts untold (at 0), so the next flush tells them again', () => {
    const log = new NotificationLog();
    const n = note(['a', 'b'], T0);
    log.record('slack', 'g', entry(['a', 'b'], T0), n);
    log.failed(n);
    expect(log.entry('slack', 'g')).toEqual(entry(['a', 'b'], 0));
    expect(log.lastToldAt('a')).toBeUndefined();
  });

  it('the outcome of an older send leaves a newer one unconfirmed', () => {
    const log = new NotificationLog();
    const first = note(['a'], T0);
    const second = note(['a', 'b'], T0 + M);
    log.record('slack', 'g', entry(['a'], T0), first);
    log.record('slack', 'g', entry(['a', 'b'], T0 + M), second);
    log.delivered(first);
    expect(log.export().unconfirmed).toEqual({ 'slack\u0000g': { alerts: ['a', 'b'], at: T0 + M } });
  });

  it('an ended group leaves no entry', () => {
    const log = new NotificationLog();
    log.record('slack', 'g', entry(['a'], T0), undefined);
    log.record('slack', 'g', undefined, note(['a'], T0 + M));
    expect(log.entry('slack', 'g')).toBeUndefined();
    expect(log.export().log).toEqual({});
  });

  it("restores a saved log in today's group keys; an unconfirmed send comes back untold", () => {
    const log = new NotificationLog();
    log.restore(
      {
        log: {
          'pager\u00001:{alertname="X"}': entry(['a'], T0),
          'slack\u0000{}:{}': entry(['b'], T0),
        },
        unconfirmed: { 'slack\u0000{}:{}': { alerts: ['b', 'c'], at: T0 } },
      },
      (key) => (key.startsWith('1:') ? `{severity="critical"}${key.slice(1)}` : key),
    );
    expect(log.export()).toEqual({
      log: {
        'pager\u0000{severity="critical"}:{alertname="X"}': entry(['a'], T0),
        'slack\u0000{}:{}': entry(['b', 'c'], 0),
      },
      unconfirmed: {},
    });
    // A file from before unconfirmed sends were saved has none.
    const older = new NotificationLog();
    older.restore({ log: { 'slack\u0000g': entry(['a'], T0) } }, (k) => k);
    expect(older.lastToldAt('a')).toBe(T0);
  });
});
