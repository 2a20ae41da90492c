// Recovery is seen quickly: the probes that decide "up" never back off past the recovery window
// (two intervals, or 30 s if longer), while the node's other failing probes keep their full backoff.
// Drives the real FleetState on the scheduler's interval grid (tick k at k * interval).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ProbeName, ProbeResult } from '../../src/domain.js';
import { FleetState, recoveryWindowMs } from '../../src/state/fleetState.js';
import { target } from '../support/targets.js';

const failed = (probe: ProbeName, at: number, durationMs: number): ProbeResult => ({
  kind: 'failed',
  probe,
  startedAt: at,
  durationMs,
  reason: 'http_5xx',
  message: 'HTTP 502',
  httpStatus: 502,
});

/** Tick times at which the probe ran while the node kept failing, over `ticks` ticks. */
function runs(intervalMs: number, timeoutMs: number, jitter: number, probe: ProbeName, ticks: number): number[] {
  const s = new FleetState([target('n', { intervalMs, timeoutMs })], {
    after: 2,
    maxFactor: 8,
    jitter,
    random: () => 1,
  });
  const out: number[] = [];
  for (let k = 0; k < ticks; k++) {
    const at = k * intervalMs;
    if (!s.due('n', probe, at, Infinity)) continue;
    out.push(at);
    s.apply('n', failed(probe, at, timeoutMs));
  }
  return out;
}

describe('backoff and recovery', () => {
  it('keeps the health probe within the recovery window while validators backs off to 8 intervals', () => {
    const health = runs(5000, 2000, 0.2, 'health', 200);
    const validators = runs(5000, 2000, 0.2, 'validators', 200);
    const gaps = (xs: number[]) => xs.slice(1).map((x, i) => x - xs[i]!);
    expect(Math.max(...gaps(health))).toBe(30_000); // at the default 5 s demo interval: every 30 s at worst (was 45 s)
    expect(Math.max(...gaps(validators))).toBe(50_000); // 8 intervals plus jitter, on the grid
  });

  it('for any interval and timeout, a failing liveness probe runs again within the recovery window (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 500, max: 120_000 }),
        fc.double({ min: 0.01, max: 0.99, noNaN: true }),
        fc.double({ min: 0, max: 0.5, noNaN: true }),
        fc.constantFrom<ProbeName>('health', 'blockNumber'),
        (interval, t, jitter, probe) => {
          const timeout = Math.floor(interval * t);
          const xs = runs(interval, timeout, jitter, probe, 120);
          for (let i = 1; i < xs.length; i++)
            expect(xs[i]! - xs[i - 1]!).toBeLessThanOrEqual(recoveryWindowMs(interval));
        },
      ),
      { numRuns: 300 },
    );
  });
});
