// "Was a maintenance window active at T" costs a binary search whatever the window's length: with
// a 168-hour recurring window active and 1,000 resolved alerts (each asking about the minute it
// resolved), the window's cron schedule is scanned once over its duration and then only for new
// minutes, however often the questions come. Counted in cron matches, not timed: before, each
// question rescanned the window minute by minute (10,080 matches a question, one round took 30 s).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NotificationDispatcher } from '../../src/alerting/notify/dispatcher.js';
import type { AlertInstance } from '../../src/alerting/rules/instance.js';
import { CronStarts } from '../../src/alerting/maintenance/cron.js';
import { MaintenanceWindows } from '../../src/alerting/maintenance/windows.js';
import { DEFAULT_TIMING } from '../../src/alerting/notify/routing.js';

const S = 1000;
const MIN = 60 * S;
const H = 3_600_000;
const WINDOW_MINUTES = 168 * 60;

function resolved(i: number, now: number): AlertInstance {
  const labels = { alertname: 'LedgerNodeDown', severity: 'critical', node: `n${i}`, network: 'main' };
  // Resolved over the last 15 minutes (what the engine keeps listed), one question per minute asked.
  return {
    id: `id${i}`,
    alertname: 'LedgerNodeDown',
    labels,
    annotations: {},
    state: 'resolved',
    value: 0,
    activeAt: now - H,
    firingSince: now - H + 60 * S,
    resolvedAt: now - (i % 900) * S,
  };
}

afterEach(() => vi.restoreAllMocks());

describe('a long maintenance window', () => {
  it('answers 1,000 resolved alerts again and again without rescanning its 168 hours', () => {
    const scans = vi.spyOn(CronStarts.prototype, 'startsAt');
    const windows = new MaintenanceWindows([
      { name: 'week', schedule: '0 0 * * 1', timezone: 'Europe/Berlin', durationMs: 168 * H, match: {} },
    ]);
    let questions = 0;
    const d = new NotificationDispatcher({
      routing: {
        ...DEFAULT_TIMING,
        groupWaitMs: 0,
        groupIntervalMs: 0,
        groupBy: ['node'],
        routes: [],
        receivers: ['hook'],
      },
      isSilenced: (labels, at) => (questions++, windows.isSilenced(labels, at)),
    });
    // A Wednesday noon: the window opened on Monday at midnight and is still open.
    const now = Date.UTC(2026, 10, 25, 12, 0, 0);
    const alerts = Array.from({ length: 1_000 }, (_, i) => resolved(i, now));
    // Each resolve is muted: the window was active at the minute it resolved (asked once per alert).
    d.update(alerts, now);
    expect(d.tick(now)).toEqual([]);
    expect(questions).toBeGreaterThanOrEqual(1_000);
    // Finding where the window opened scans back at most its own length once.
    const firstScan = scans.mock.calls.length;
    expect(firstScan).toBeGreaterThan(0);
    expect(firstScan).toBeLessThanOrEqual(WINDOW_MINUTES + 60);
    // 100 evaluations, one a minute: each asks about every resolved alert's minute and about now.
    let asked = 0;
    for (let round = 1; round <= 100; round++) {
      const at = now + round * MIN;
      for (const a of alerts) if (windows.isSilenced(a.labels, a.resolvedAt!) === 'week') asked++;
      if (windows.isSilenced({ node: 'x' }, at) === 'week') asked++;
    }
    expect(asked).toBe(100 * 1_001);
    // Only the 100 new minutes were matched against the schedule, whatever the 100,100 questions.
    expect(scans.mock.calls.length - firstScan).toBeLessThanOrEqual(100);
    windows.dispose();
  });
});
