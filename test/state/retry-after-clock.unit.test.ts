// A Retry-After given as an HTTP-date is the server's wall clock: it is compared with our wall
// clock once, when the answer arrives, and the pause it asks for then runs on the monotonic clock.
// Compared with a monotonic reading instead, a wall clock stepped forward an hour paused the node
// for the hour (the cap), and one stepped back made the server's pause vanish.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock/clock.js';
import type { ProbeResult } from '../../src/domain.js';
import { FleetState } from '../../src/state/fleetState.js';
import { target } from '../support/targets.js';

const HOUR = 3_600_000;
const noBackoff = { after: 100, maxFactor: 1, jitter: 0, random: () => 0 };

/** The pause a 503 with `Retry-After: <now + 90 s as an HTTP-date>` sets, with the wall clock stepped by `stepMs`. */
function pauseAfterStep(stepMs: number): number | undefined {
  const clock = new ManualClock(Date.UTC(2026, 10, 27, 12));
  clock.step(stepMs);
  const state = new FleetState([target('a', { intervalMs: 1000 })], noBackoff, clock);
  const end = clock.mono();
  const failed: ProbeResult = {
    kind: 'failed',
    probe: 'health',
    startedAt: end - 5,
    durationMs: 5,
    reason: 'http_5xx',
    message: 'HTTP 503',
    httpStatus: 503,
  };
  state.apply('a', failed, new Date(clock.wall() + 90_000).toUTCString());
  const notBefore = state.get('a')!.probes.get('health')!.notBefore;
  return notBefore === undefined ? undefined : notBefore - end;
}

describe('Retry-After as an HTTP-date', () => {
  it('pauses for what the date says, whatever step the wall clock took', () => {
    for (const step of [0, HOUR, -HOUR, 10 * 60_000, -10 * 60_000])
      expect(pauseAfterStep(step), `step ${step}`).toBe(90_000);
  });
});
