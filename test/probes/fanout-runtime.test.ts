// A fan-out probe added at run time, as one module registered in the test: for each validator of
// each network's set, one getStake call with the address as its param, read through the real
// daemon from the simulator over loopback, and its series on /metrics, with no other file touched.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import type { FanOutEntity } from '../../src/domain.js';
import { createLogger } from '../../src/logger.js';
import { fanOutComponent } from '../../src/probe/fanOutComponent.js';
import { parseAmount } from '../../src/probes/parse.js';
import { registerProbe, unregisterProbe } from '../../src/probes/registry.js';
import type { FanOutProbe } from '../../src/probes/types.js';
import { SimFleet } from '../../src/sim/index.js';
import { waitFor } from '../support/processes.js';
import { daemonConfig, target } from '../support/targets.js';

// Entities made once per address, so their requests are built once.
const entities = new Map<string, FanOutEntity>();
const entity = (network: string, address: string): FanOutEntity => {
  const key = `${network}/${address}`;
  let e = entities.get(key);
  if (!e) entities.set(key, (e = { key, network, label: 'validator', id: address, params: [address] }));
  return e;
};

const stakeOf: FanOutProbe<bigint> = {
  target: 'entities',
  method: 'getStake',
  entities: (_config, fleet) =>
    fleet.networks.flatMap((n) => (n.validators?.list ?? []).map((v) => entity(n.network, v.address))),
  intervalMs: () => 200,
  parse: (result) => parseAmount(result, 'getStake'),
  metrics: [
    {
      name: 'ledger_test_validator_stake_base_units',
      help: 'Stake by getStake, in base units.',
      value: (stake) => Number(stake),
    },
  ],
};

let fleet: SimFleet;
let daemon: Daemon;

beforeAll(async () => {
  registerProbe('stakeOf', stakeOf);
  fleet = await SimFleet.start(
    [
      { name: 'a1', network: 'alpha', build: 'current' },
      { name: 'a2', network: 'alpha', build: 'current' },
      { name: 'b1', network: 'beta', build: 'current' },
    ],
    { layout: 'port-per-node', blockTimeMs: 1000 },
  );
  const targets = fleet.nodes.map((n) =>
    target(n.name, { url: n.url, network: n.network, intervalMs: 500, timeoutMs: 2_000 }),
  );
  const fanOut = fanOutComponent({ tickMs: 50 });
  daemon = await startDaemon(daemonConfig(targets), {
    logger: createLogger({ level: 'silent' }),
    evidence: false,
    defaultMetrics: false,
    components: [fanOut],
  });
});

afterAll(async () => {
  await daemon?.close();
  await fleet?.close();
  unregisterProbe('stakeOf');
});

/** The stakes getValidators answers, as the decimal strings on the wire. */
async function validatorStakes(url: string): Promise<Map<string, string>> {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"jsonrpc":"2.0","id":1,"method":"claw_getValidators","params":[]}',
  });
  const body = (await res.body.json()) as { result: Array<{ address: string; stake: string }> };
  return new Map(body.result.map((v) => [v.address, v.stake]));
}

async function metrics(): Promise<string[]> {
  const res = await request(`${daemon.url}/metrics`);
  return (await res.body.text()).split('\n');
}

describe('a fan-out probe registered at run time', () => {
  it('calls the method once per entity with its params and shows one series per entity on /metrics', async () => {
    // Every validator of both networks read once (reads start as the sets become known).
    const snap = await waitFor(
      'a stake read of every validator',
      () => {
        const s = daemon.snapshot();
        const wanted = s.networks.reduce((n, net) => n + (net.validators?.list.length ?? 0), 0);
        const reads = s.fanOut?.get('stakeOf') ?? [];
        // Both networks' sets known: a set polled later would count nothing in `wanted`.
        return (
          s.networks.length === 2 &&
          s.networks.every((net) => (net.validators?.list.length ?? 0) > 0) &&
          reads.length === wanted &&
          reads.every((r) => r.data !== undefined) &&
          s
        );
      },
      {
        timeoutMs: 15_000,
        intervalMs: 50,
        context: () =>
          JSON.stringify(
            daemon
              .snapshot()
              .fanOut?.get('stakeOf')
              ?.filter((r) => r.data === undefined),
            (_k, v) => (typeof v === 'bigint' ? String(v) : v),
          ),
      },
    );
    const lines = await metrics();
    expect(lines).toContain('# TYPE ledger_test_validator_stake_base_units gauge');
    for (const net of snap.networks) {
      const stakes = await validatorStakes(fleet.nodes.find((n) => n.network === net.network)!.url);
      const list = net.validators?.list ?? [];
      expect(list.length).toBeGreaterThan(0);
      const reads = snap.fanOut?.get('stakeOf') ?? [];
      for (const v of list) {
        const read = reads.find((r) => r.entity.network === net.network && r.entity.id === v.address);
        expect(read, `${net.network} ${v.address}`).toBeDefined();
        // Each call carried its own address: getStake answers that validator's stake, exactly (beyond 2^53).
        expect(read!.data).toBe(BigInt(stakes.get(v.address)!));
        expect(read!.data as bigint).toBeGreaterThan(2n ** 53n);
        const line = lines.find((l) =>
          l.startsWith(`ledger_test_validator_stake_base_units{network="${net.network}",validator="${v.address}"}`),
        );
        expect(line, v.address).toBeDefined();
        expect(Number(line!.split(' ')[1])).toBe(Number(read!.data as bigint));
        // Served by a node of the entity's own network.
        expect(fleet.nodes.find((n) => n.name === read!.servedBy)?.network).toBe(net.network);
      }
    }
  });
});
