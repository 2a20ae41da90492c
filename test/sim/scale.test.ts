import { afterEach, describe, expect, it } from 'vitest';
import { SimFleet, mixedFleetSpecs } from '../../src/sim/index.js';
import { http } from './helpers.js';

let fleet: SimFleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

/** Requests every node's /health and RPC with bounded concurrency; returns the statuses seen. */
async function sweep(f: SimFleet, concurrency: number): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async () => {
    while (next < f.nodes.length) {
      const n = f.nodes[next++]!;
      const r = await http(`${n.url}/health`);
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return statuses;
}

describe('a thousand nodes in one process', () => {
  it.each(['shared-port', 'port-per-node'] as const)('%s: starts, answers every node, and closes', async (layout) => {
    fleet = await SimFleet.start(mixedFleetSpecs(1_000, { networks: ['alpha', 'beta', 'gamma'] }), { layout });
    expect(fleet.nodes.length).toBe(1_000);
    expect(new Set(fleet.nodes.map((n) => n.url)).size).toBe(1_000);
    const statuses = await sweep(fleet, 32);
    expect(Object.fromEntries(statuses)).toEqual({ 200: 1_000 });
    expect(fleet.nodes.every((n) => n.requestCount() === 1)).toBe(true);
  });
});
