// The page script (src/status/browser/, compiled on its own with DOM types) reads the JSON API
// through its own declarations of it: the server's answers must be assignable to them, so a field
// renamed or retyped on the server fails `npm run typecheck` here instead of the page at runtime.
import { describe, expect, it } from 'vitest';
import type { ProbeResult } from '../../src/domain.js';
import { FleetState } from '../../src/state/fleetState.js';
import { nodeJson, nodesJson } from '../../src/status/api.js';
import { StatusBoard } from '../../src/status/board.js';
import type { FleetJson, NodeJson } from '../../src/status/browser/apiTypes.js';
import { target } from '../support/targets.js';

describe('the JSON API as the page script declares it', () => {
  it('is what the server answers, for the fleet and for one node', () => {
    const t = 1_800_000_000_000;
    const state = new FleetState([target('n1', { probes: ['blockNumber'], intervalMs: 5000, timeoutMs: 2000 })], {
      after: 1000,
      maxFactor: 1,
      jitter: 0,
      random: () => 0,
    });
    const board = new StatusBoard({ now: () => t });
    const r: ProbeResult = {
      kind: 'ok',
      probe: 'blockNumber',
      startedAt: t,
      durationMs: 5,
      data: { probe: 'blockNumber', value: 100 },
      namespace: 'claw',
    };
    state.apply('n1', r);
    board.noteResult('n1', r);
    board.update(state);
    const src = { board, now: () => t, refreshMs: 1000, activeAlerts: () => [] };
    // The assignments are the check (typecheck); the values show the answers are real ones.
    const fleet: FleetJson = nodesJson(src, 30);
    const node: NodeJson | undefined = nodeJson(src, 'n1');
    expect(fleet.nodes.map((n) => [n.name, n.status, n.height])).toEqual([['n1', 'up', 100]]);
    expect(fleet.alerts).toEqual([]);
    expect(node?.node.probes.map((p) => [p.probe, p.outcome])).toEqual([['blockNumber', 'ok']]);
  });
});
