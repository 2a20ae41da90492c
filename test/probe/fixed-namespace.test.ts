// A pinned rpcNamespace the node no longer speaks is an outage, not a set of unsupported methods:
// every build offers blockNumber, so "method not found" on it means the word is wrong. Simulated
// nodes over loopback: `cur` (a current build, `claw`) and `old` (the earliest build, `clw`,
// without getValidators or getMiningStats), both pinned to `clw`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeTarget, ProbeName, ProbeResult } from '../../src/domain.js';
import { HttpClient } from '../../src/http/client.js';
import { createDispatcher } from '../../src/http/dispatcher.js';
import { NodeProber } from '../../src/probe/prober.js';
import { Secrets } from '../../src/redact.js';
import { SimFleet } from '../../src/sim/index.js';
import { FleetState } from '../../src/state/fleetState.js';
import { buildSnapshot } from '../../src/state/snapshot.js';
import { target } from '../support/targets.js';

const dispatcher = createDispatcher();
const client = new HttpClient({ dispatcher, secrets: new Secrets() });
let fleet: SimFleet;

beforeAll(async () => {
  fleet = await SimFleet.start([
    { name: 'cur', build: 'current' },
    { name: 'old', build: 'earliest' },
  ]);
});
afterAll(async () => {
  await client.close();
  await dispatcher.close();
  await fleet.close();
});

const RPC_PROBES: ProbeName[] = ['blockNumber', 'miningStats', 'validators'];
const noBackoff = { after: 1000, maxFactor: 1, jitter: 0, random: () => 0 };

async function pollPinned(name: string): Promise<{ results: Map<ProbeName, ProbeResult>; state: FleetState }> {
  const t: NodeTarget = target(name, {
    url: fleet.node(name).url,
    rpcNamespace: 'clw',
    probes: RPC_PROBES,
    timeoutMs: 2_000,
  });
  const prober = new NodeProber(t, { client, maxResponseBytes: 1 << 20, maxUpstreamSeries: 100 });
  const state = new FleetState([t], noBackoff);
  const results = new Map<ProbeName, ProbeResult>();
  for (const p of RPC_PROBES) {
    const r = await prober.run(p);
    results.set(p, r);
    state.apply(name, r);
  }
  return { results, state };
}

describe('a fixed rpcNamespace', () => {
  it('that the node no longer offers fails every RPC probe as rpc_error, saying so; the node is down', async () => {
    const { results, state } = await pollPinned('cur');
    for (const p of RPC_PROBES) {
      expect(results.get(p), p).toMatchObject({
        kind: 'failed',
        reason: 'rpc_error',
        message: 'namespace clw not offered by the node (method not found: clw_blockNumber)',
      });
    }
    const view = buildSnapshot(state.nodes(), {}, Date.now()).nodes[0]!;
    expect(view.up).toBe(false);
    for (const pv of view.probes) {
      expect(pv.supported, pv.probe).toBe(true); // ledger_probe_supported stays 1
      expect(pv.success, pv.probe).toBe(false);
      expect(pv.failures.rpc_error, pv.probe).toBe(1);
    }
  });

  it('that the node offers keeps methods its build lacks unsupported, not failing', async () => {
    const { results, state } = await pollPinned('old');
    expect(results.get('blockNumber')).toMatchObject({ kind: 'ok', namespace: 'clw' });
    expect(results.get('miningStats')).toMatchObject({ kind: 'unsupported' });
    expect(results.get('validators')).toMatchObject({ kind: 'unsupported' });
    const view = buildSnapshot(state.nodes(), {}, Date.now()).nodes[0]!;
    expect(view.up).toBe(true);
    expect(view.probes.filter((p) => !p.supported).map((p) => p.probe)).toEqual(['miningStats', 'validators']);
  });
});
