// ledger_probe_last_success_timestamp_seconds is a Unix timestamp: the wall time of the last
// success, while the node state keeps it on the monotonic clock. After the wall clock is stepped
// (forward an hour, then back two), a success shows the wall time it happened at, and lines kept
// from before the step follow the wall clock without a new result. Real FleetState, snapshot
// (with the wall clock's lead, as the pipeline builds it) and view; a manual clock pair.
import { describe, expect, it } from 'vitest';
import { ManualClock, wallOffset } from '../../src/clock/clock.js';
import type { ProbeResult } from '../../src/domain.js';
import { MetricsView, type ExporterCounters } from '../../src/metrics/view.js';
import { FleetState } from '../../src/state/fleetState.js';
import { buildSnapshot } from '../../src/state/snapshot.js';
import { target } from '../support/targets.js';

const HOUR = 3_600_000;
const counters: ExporterCounters = { configReloads: { success: 0, failure: 0 }, pollOverruns: new Map() };

describe('timestamp metrics under wall-clock steps', () => {
  it('ledger_probe_last_success_timestamp_seconds is the wall time of the last success', async () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
    const state = new FleetState(
      [target('n1', { probes: ['blockNumber'], intervalMs: 1000 })],
      { after: 1000, maxFactor: 1, jitter: 0, random: () => 0 },
      clock,
    );
    const view = new MetricsView(
      { version: '1.0.0', infoLabelKeys: [], defaultMetrics: false, now: () => clock.mono() },
      () => ({
        snapshot: buildSnapshot(state.nodes(), {}, clock.mono(), wallOffset(clock)),
        upstream: [],
        counters,
      }),
      () => undefined,
    );
    /** A success now, 5 ms long; returns the wall time it ended at. */
    const succeed = (): number => {
      const r: ProbeResult = {
        kind: 'ok',
        probe: 'blockNumber',
        startedAt: clock.mono(),
        durationMs: 5,
        data: { probe: 'blockNumber', value: 7 },
        namespace: 'claw',
      };
      clock.advance(5);
      state.apply('n1', r);
      return clock.wall();
    };
    const lastSuccess = async (): Promise<number> => {
      const text = (await view.render('text')).body.toString();
      const line = text.split('\n').find((l) => l.startsWith('ledger_probe_last_success_timestamp_seconds{node="n1"'));
      expect(line).toBeDefined();
      return Number(line!.split(' ').at(-1));
    };

    const first = succeed();
    expect(await lastSuccess()).toBeCloseTo(first / 1000, 3);

    clock.step(HOUR);
    // No new result: the kept line follows the wall clock as it reads now.
    expect(await lastSuccess()).toBeCloseTo((first + HOUR) / 1000, 3);
    clock.advance(10_000);
    const afterForward = succeed();
    expect(await lastSuccess()).toBeCloseTo(afterForward / 1000, 3);

    clock.step(-2 * HOUR);
    clock.advance(10_000);
    const afterBack = succeed();
    expect(await lastSuccess()).toBeCloseTo(afterBack / 1000, 3);
    expect(Math.round(await lastSuccess())).toBe(Math.round(clock.wall() / 1000));
  });
});
