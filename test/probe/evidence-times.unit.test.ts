// Evidence records outlive the process: the last success they name is a wall time, although the
// node state keeps it monotonic. After the wall clock is stepped, the record's lastSuccess is the
// success's time as the wall clock reads now. Real FleetState and record builder; a manual clock pair.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock/clock.js';
import type { ProbeResult } from '../../src/domain.js';
import { buildEvidenceRecord } from '../../src/evidence/record.js';
import { evidenceOf } from '../../src/probe/results.js';
import { FleetState } from '../../src/state/fleetState.js';
import { target } from '../support/targets.js';

const HOUR = 3_600_000;

describe('evidence times under wall-clock steps', () => {
  it("a record's last success is the wall time of the success, after a step both ways", () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
    const t = target('n1', { probes: ['blockNumber'], intervalMs: 1000 });
    const state = new FleetState([t], { after: 1000, maxFactor: 1, jitter: 0, random: () => 0 }, clock);
    const run = (ok: boolean): ProbeResult & { kind: 'ok' | 'failed' } => {
      const started = clock.mono();
      clock.advance(5);
      const r: ProbeResult & { kind: 'ok' | 'failed' } = ok
        ? {
            kind: 'ok',
            probe: 'blockNumber',
            startedAt: started,
            durationMs: 5,
            data: { probe: 'blockNumber', value: 7 },
            namespace: 'claw',
          }
        : {
            kind: 'failed',
            probe: 'blockNumber',
            startedAt: started,
            durationMs: 5,
            reason: 'http_5xx',
            httpStatus: 502,
            message: 'HTTP 502',
            response: {
              method: 'POST claw_blockNumber',
              status: 502,
              headers: {},
              body: new TextEncoder().encode('bad gateway'),
            },
          };
      state.apply('n1', r);
      return r;
    };
    const lastSuccessOf = (r: ProbeResult & { kind: 'failed' }) =>
      buildEvidenceRecord(
        evidenceOf(t, r, state.get('n1')!, clock),
        { hostname: 'h', version: 'v' },
        new Date(clock.wall()),
      ).runnerStatus.lastSuccess;

    clock.step(HOUR);
    run(true);
    const okWall = clock.wall();
    clock.advance(10_000);
    expect(lastSuccessOf(run(false) as ProbeResult & { kind: 'failed' })).toBe(new Date(okWall).toISOString());

    clock.step(-2 * HOUR);
    clock.advance(10_000);
    // The success, 20 s before now by the monotonic clock, on the wall clock as it reads now.
    expect(lastSuccessOf(run(false) as ProbeResult & { kind: 'failed' })).toBe(
      new Date(clock.wall() - 20_010).toISOString(),
    );
  });
});
