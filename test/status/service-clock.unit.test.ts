// The status service measures on the monotonic clock the node state is kept on: a wall clock
// stepped back neither freezes its updates (their schedule), and one stepped forward does not make
// a node whose block age it counts itself look stalled. Default clocks; the wall clock is mocked.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SYSTEM_CLOCK } from '../../src/clock/clock.js';
import type { ProbeName, ProbeResult } from '../../src/domain.js';
import type { BuiltInProbeData as ProbeData } from '../../src/probes/index.js';
import { FleetState } from '../../src/state/fleetState.js';
import { StatusService } from '../../src/status/service.js';
import { waitFor } from '../support/processes.js';
import { target } from '../support/targets.js';

const HOUR = 3_600_000;
const ok = (data: ProbeData): ProbeResult => ({
  kind: 'ok',
  probe: data.probe,
  startedAt: SYSTEM_CLOCK.mono(),
  durationMs: 5,
  data,
  namespace: 'claw',
});

/** The wall clock, mocked from the start (a clock captured at construction sees the step too). */
function wallStep(): (ms: number) => void {
  const real = Date.now.bind(Date);
  let step = 0;
  vi.spyOn(Date, 'now').mockImplementation(() => real() + step);
  return (ms) => void (step = ms);
}

function rig(probes: ProbeName[]) {
  const state = new FleetState([target('a', { probes, intervalMs: 1000, timeoutMs: 500 })], {
    after: 1000,
    maxFactor: 1,
    jitter: 0,
    random: () => 0,
  });
  let updates = 0;
  const service = new StatusService({
    logger: { warn: () => undefined, info: () => undefined } as never,
    fleet: () => (updates++, state),
    minIntervalMs: () => 1000,
  });
  const result = (r: ProbeResult) => {
    state.apply('a', r);
    service.noteResult('a', r);
  };
  return { service, result, updates: () => updates };
}

describe('status service under wall-clock steps', () => {
  afterEach(() => vi.restoreAllMocks());

  it('a wall clock stepped back an hour does not hold back the next update', async () => {
    const stepWall = wallStep();
    const { service, result, updates } = rig(['health']);
    await service.open();
    service.refresh();
    stepWall(-HOUR);
    result(
      ok({ probe: 'health', value: { status: 'ok', version: '0.5.8', height: 7, lastBlockAgeSecs: 1, peerCount: 4 } }),
    );
    await waitFor('the update taking the result in', () => (updates() >= 2 ? true : undefined), { timeoutMs: 3_000 });
    expect(service.board.node('a')).toMatchObject({ status: 'up', height: 7 });
    await service.close();
  });

  it('a wall clock stepped forward an hour does not age the block height it counts itself', async () => {
    const stepWall = wallStep();
    const { service, result } = rig(['blockNumber']);
    await service.open();
    result(ok({ probe: 'blockNumber', value: 7 }));
    service.refresh();
    expect(service.board.node('a')?.blockAgeSecs).toBe(0);
    stepWall(HOUR);
    result(ok({ probe: 'blockNumber', value: 7 }));
    service.refresh();
    expect(service.board.node('a')?.blockAgeSecs).toBeLessThan(5);
    expect(service.board.node('a')?.status).not.toBe('stalled');
    await service.close();
  });
});
