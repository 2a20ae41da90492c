// Reads what the status board needs of a node from the fleet state: settings and probe timing.
import type { ProbeName } from '../domain.js';
import type { FleetState } from '../state/fleetState.js';
import type { NodeTimingSource } from './board.js';
import type { ProbeTiming } from './derive.js';

export function timingFromState(state: Pick<FleetState, 'get'>): NodeTimingSource {
  return (name) => {
    const n = state.get(name);
    if (!n) return undefined;
    const probes = new Map<ProbeName, ProbeTiming>();
    for (const [p, s] of n.probes) probes.set(p, { lastRunAt: s.lastRun?.at, notBefore: s.notBefore, lastSuccessAt: s.lastSuccessAt });
    return { intervalMs: n.target.intervalMs, timeoutMs: n.target.timeoutMs, probes };
  };
}
