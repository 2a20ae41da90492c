// What the status board shares between nodes instead of keeping one per node: the empty failures
// map of a node that never failed, and the liveness probe list of each distinct probe list.
import { describe, expect, it } from 'vitest';
import type { ProbeName } from '../../src/domain.js';
import { livenessProbes } from '../../src/state/fleetState.js';
import { sharedLiveness } from '../../src/status/boardReader.js';
import { NodeHistory } from '../../src/status/history.js';
import { failuresOf, NO_FAILURES, newTracked } from '../../src/status/tracked.js';

describe('status board per-node sharing', () => {
  it('gives a node its own failures map at its first failure and leaves the shared empty one empty', () => {
    const a = newTracked('a', new NodeHistory(), 0);
    const b = newTracked('b', new NodeHistory(), 0);
    expect(a.failures).toBe(NO_FAILURES);
    failuresOf(a).set('health', { at: 1, reason: 'timeout', message: 'timed out', fromProxy: false });
    failuresOf(a).set('metrics', { at: 2, reason: 'http_5xx', message: 'HTTP 502', httpStatus: 502, fromProxy: true });
    expect([...a.failures.keys()]).toEqual(['health', 'metrics']);
    expect(a.failures).not.toBe(NO_FAILURES);
    expect(NO_FAILURES.size).toBe(0);
    expect(b.failures.size).toBe(0);
    expect(b.failures).toBe(NO_FAILURES);
  });

  it('shares one liveness list per probe list, equal to livenessProbes of it', () => {
    const lists: ProbeName[][] = [
      ['health', 'blockNumber', 'metrics'],
      ['metrics'],
      ['validators', 'metrics'],
      ['blockNumber'],
      [],
    ];
    for (const probes of lists) {
      const live = sharedLiveness([...probes]);
      expect(live).toEqual(livenessProbes(probes));
      expect(sharedLiveness([...probes])).toBe(live);
      expect(Object.isFrozen(live)).toBe(true);
    }
    expect(sharedLiveness(['health', 'metrics'])).not.toBe(sharedLiveness(['metrics', 'health']));
    expect(sharedLiveness(['metrics', 'health'])).toEqual(['health']);
  });
});
