// "Was a maintenance window active at T" costs microseconds whatever the window's length: with
// a 168-hour recurring window active and 1,000 resolved alerts (each asking about the minute it
// resolved), evaluating and flushing every 50 ms keeps the event loop's lag under 20 ms. A
// behaviour bound, kept generous: before, each question rescanned the window minute by minute.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { NotificationDispatcher } from '../../src/alerting/dispatcher.js';
import type { AlertInstance } from '../../src/alerting/instance.js';
import { MaintenanceWindows } from '../../src/alerting/maintenance.js';
import { DEFAULT_TIMING } from '../../src/alerting/routing.js';

const S = 1000;
const H = 3_600_000;

function resolved(i: number, now: number): AlertInstance {
  const labels = { alertname: 'LedgerNodeDown', severity: 'critical', node: `n${i}`, network: 'main' };
  // Resolved over the last 15 minutes (what the engine keeps listed), one question per minute asked.
  return { id: `id${i}`, alertname: 'LedgerNodeDown', labels, annotations: {}, state: 'resolved', value: 0, activeAt: now - H, firingSince: now - H + 60 * S, resolvedAt: now - (i % 900) * S };
}

describe('a long maintenance window', () => {
  it('answers for 1,000 resolved alerts without lagging the event loop (168 h window)', async () => {
    const windows = new MaintenanceWindows([{ name: 'week', schedule: '0 0 * * 1', timezone: 'Europe/Berlin', durationMs: 168 * H, match: {} }]);
    const d = new NotificationDispatcher({
      routing: { ...DEFAULT_TIMING, groupWaitMs: 0, groupIntervalMs: 0, groupBy: ['node'], routes: [], receivers: ['hook'] },
      isSilenced: (labels, at) => (questions++, windows.isSilenced(labels, at)),
    });
    let questions = 0;
    const now = Date.now();
    const alerts = Array.from({ length: 1_000 }, (_, i) => resolved(i, now));
    // Each resolve is muted: the window was active at the minute it resolved (asked once per alert).
    d.update(alerts, now);
    expect(d.tick(now)).toEqual([]);
    expect(questions).toBeGreaterThanOrEqual(1_000);
    const lag = monitorEventLoopDelay({ resolution: 5 });
    lag.enable();
    let asked = 0;
    const until = Date.now() + 2_000;
    while (Date.now() < until) {
      // Each evaluation asks again about every resolved alert's minute (listings, pushes).
      for (const a of alerts) if (windows.isSilenced(a.labels, a.resolvedAt!) === 'week') asked++;
      if (windows.isSilenced({ node: 'x' }, Date.now()) === 'week') asked++;
      await new Promise((r) => setTimeout(r, 50));
    }
    lag.disable();
    expect(asked).toBeGreaterThan(10_000);
    expect(lag.percentile(99) / 1e6).toBeLessThan(20);
    windows.dispose();
  }, 60_000);
});
