// A probe's state is made with every field it will ever have (so V8 keeps them in the object
// itself): the fields start as before (no run, no failure, every reason counted at zero) and
// are filled in place by results.
import { describe, expect, it } from 'vitest';
import { FAILURE_REASONS, type ProbeResult } from '../../src/domain.js';
import { FleetState } from '../../src/state/fleetState.js';
import { target } from '../support/targets.js';

const ok = (at: number): ProbeResult => ({
  kind: 'ok',
  probe: 'health',
  startedAt: at,
  durationMs: 5,
  data: { probe: 'health', value: { status: 'ok', version: '0.5.8', height: 10, peerCount: 4 } },
});
const failed = (at: number): ProbeResult => ({
  kind: 'failed',
  probe: 'health',
  startedAt: at,
  durationMs: 7,
  reason: 'timeout',
  message: 'timed out',
});

describe('probe state', () => {
  it('starts with no run, no failure and a zero count for every failure reason, in their order', () => {
    const s = new FleetState([target('n')]);
    const ps = s.get('n')!.probes.get('health')!;
    expect(Object.keys(ps.failures)).toEqual([...FAILURE_REASONS]);
    expect(Object.values(ps.failures).every((n) => n === 0)).toBe(true);
    expect(ps).toEqual({ supported: true, runs: 0, failures: ps.failures, consecutiveFailures: 0 });
    expect(ps.lastRun).toBeUndefined();
    expect(ps.notBefore).toBeUndefined();
  });

  it('keeps each probe its own counts', () => {
    const s = new FleetState([target('a'), target('b')]);
    s.apply('a', failed(1_000));
    s.apply('a', failed(2_000));
    s.apply('b', ok(1_000));
    expect(s.get('a')!.probes.get('health')!.failures.timeout).toBe(2);
    expect(s.get('a')!.probes.get('health')!.consecutiveFailures).toBe(2);
    expect(s.get('b')!.probes.get('health')!.failures.timeout).toBe(0);
    expect(s.get('b')!.probes.get('health')!.lastRun).toEqual({ at: 1_000, durationMs: 5, ok: true });
    expect(s.get('b')!.probes.get('health')!.lastSuccessAt).toBe(1_005);
  });

  it('shares one frozen zero count among probes never failed, and gives a probe its own at its first failure', () => {
    const s = new FleetState([target('a'), target('b')]);
    const a = s.get('a')!.probes.get('health')!;
    const b = s.get('b')!.probes.get('health')!;
    expect(a.failures).toBe(b.failures);
    expect(Object.isFrozen(a.failures)).toBe(true);
    const before = a.failures;
    s.apply('a', failed(1_000));
    expect(a.failures).not.toBe(before);
    expect(a.failures.timeout).toBe(1);
    expect(Object.isFrozen(a.failures)).toBe(false);
    // The shared counts are untouched: the other node and an earlier view still read zero.
    expect(Object.values(before).every((n) => n === 0)).toBe(true);
    expect(b.failures).toBe(before);
    s.apply('a', failed(2_000));
    expect(a.failures.timeout).toBe(2);
  });
});
