// The simulator's delegation and agent methods answer as claw-node 0.5.8 does (reference-node-
// facts.md, "Delegations, agents, tokens and services"), under every namespace it serves, in
// shapes the exporter's own parsers accept; the control API changes them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAgent, parseAgentScore, parseReputation } from '../../src/probes/watch/agentParse.js';
import { parseUserDelegations } from '../../src/probes/watch/delegations.js';
import { SimFleet } from '../../src/sim/index.js';
import { delegatorTarget } from '../../src/sim/ledger-delegations.js';
import { agentTarget, HALVING_EPOCHS } from '../../src/sim/ledger-agents.js';
import { http, manualClock, rpc } from './helpers.js';

const clock = manualClock();
let fleet: SimFleet;
let control: string;
const url = (name: string) => fleet.node(name).url;

beforeAll(async () => {
  fleet = await SimFleet.start(
    [
      { name: 'cur', build: 'current' },
      { name: 'stk', build: 'staking' },
      { name: 'old', build: 'earliest' },
      { name: 'chainns', build: 'current', namespace: 'chain' },
    ],
    { blockTimeMs: 3_000, now: clock.now, controlPort: 0 },
  );
  control = fleet.controlUrl!;
});
afterAll(() => fleet.close());

const post = async (path: string, body: unknown) => {
  const r = await http(`${control}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: r.status, json: JSON.parse(r.body) as Record<string, unknown> };
};

describe('delegations', () => {
  it('getUserDelegations: one entry per validator, u128 strings, the validator commission; [] for none', async () => {
    const chain = fleet.chain('simnet');
    const delegator = delegatorTarget(chain.simChain)!;
    for (const [node, ns] of [
      ['cur', 'claw'],
      ['chainns', 'chain'],
    ] as const) {
      const r = await rpc(url(node), `${ns}_getUserDelegations`, [delegator]);
      const list = r.result as Array<{ validator: string; amount: string; commission_bps: number }>;
      expect(list.length).toBeGreaterThan(0);
      for (const d of list) {
        expect(Object.keys(d).sort()).toEqual(['amount', 'commission_bps', 'validator']);
        expect(d.amount).toMatch(/^[0-9]+$/);
        expect(d.commission_bps).toBe(chain.ledger().validators.get(d.validator)!.commissionBps);
      }
      expect(parseUserDelegations(list).map((d) => d.amount.toString())).toEqual(list.map((d) => d.amount));
    }
    expect((await rpc(url('cur'), 'claw_getUserDelegations', ['00'.repeat(32)])).result).toEqual([]);
    // Not in the earliest builds.
    expect((await rpc(url('old'), 'clw_getUserDelegations', [delegator])).error?.code).toBe(-32000);
  });

  it('undelegating through the control API removes the entry, lowers the validator stake; amounts exact', async () => {
    const chain = fleet.chain('simnet');
    const delegator = delegatorTarget(chain.simChain)!;
    const before = (await rpc(url('cur'), 'claw_getUserDelegations', [delegator])).result as Array<{
      validator: string;
      amount: string;
    }>;
    const first = before[0]!;
    const v = chain.ledger().validators.get(first.validator)!;
    const stakeBefore = v.selfStake + v.delegated;
    // A u128 beyond 2^64 stays exact end to end.
    const big = '340282366920938463463374607431768211455';
    expect(
      (await post(`/networks/simnet/delegators/${delegator}`, { validator: first.validator, amount: big })).status,
    ).toBe(200);
    const grown = (await rpc(url('cur'), 'claw_getUserDelegations', [delegator])).result as Array<{ amount: string }>;
    expect(grown[0]!.amount).toBe(big);
    const r = await post(`/networks/simnet/delegators/${delegator}`, { validator: first.validator, amount: '0' });
    expect(r.status).toBe(200);
    const after = (await rpc(url('cur'), 'claw_getUserDelegations', [delegator])).result as Array<{
      validator: string;
    }>;
    expect(after.map((d) => d.validator)).toEqual(before.slice(1).map((d) => d.validator));
    expect(v.selfStake + v.delegated).toBe(stakeBefore - BigInt(first.amount));
    expect((await post(`/networks/simnet/delegators/${delegator}`, { validator: first.validator })).status).toBe(400);
  });

  it('getStake and getStakeDelegation (staking builds on)', async () => {
    const chain = fleet.chain('simnet');
    const owned = [...chain.ledger().validators.values()].find((v) => v.delegatedBy !== null);
    const plain = [...chain.ledger().validators.values()].find((v) => v.delegatedBy === null)!;
    expect((await rpc(url('stk'), 'claw_getStakeDelegation', [plain.address])).result).toBeNull();
    if (owned)
      expect((await rpc(url('stk'), 'claw_getStakeDelegation', [owned.address])).result).toBe(owned.delegatedBy);
    expect((await rpc(url('stk'), 'claw_getStake', ['00'.repeat(32)])).result).toBe('0');
  });
});

describe('agents', () => {
  it('getAgent, getAgentScore and getReputation in the serde forms, under clw, claw and chain', async () => {
    const agent = agentTarget(fleet.chain('simnet').simChain)!;
    for (const [node, ns] of [
      ['old', 'clw'],
      ['cur', 'claw'],
      ['chainns', 'chain'],
    ] as const) {
      const a = (await rpc(url(node), `${ns}_getAgent`, [agent])).result as Record<string, unknown>;
      expect(Object.keys(a).sort()).toEqual(['address', 'metadata', 'name', 'registered_at']);
      expect(parseAgent(a, agent)).toMatchObject({ registered: true, name: a.name });
      const rep = (await rpc(url(node), `${ns}_getReputation`, [agent])).result as Array<Record<string, unknown>>;
      for (const x of rep) {
        expect(Object.keys(x).sort()).toEqual(['block_height', 'category', 'from', 'memo', 'platform', 'score', 'to']);
        expect(Buffer.from(x.to as number[]).toString('hex')).toBe(agent);
      }
      expect(parseReputation(rep).attestations).toBe(rep.length);
    }
    const score = (await rpc(url('cur'), 'claw_getAgentScore', [agent])).result as Record<string, number>;
    expect(parseAgentScore(score).total).toBe(score.total);
    expect(Object.values(score).every((x) => Number.isInteger(x) && x >= 0 && x <= 10_000)).toBe(true);
    // Always an object, also for an address that is no agent.
    const none = (await rpc(url('cur'), 'claw_getAgentScore', ['00'.repeat(32)])).result as Record<string, number>;
    expect(none.total).toBe(0);
    expect((await rpc(url('old'), 'clw_getAgentScore', [agent])).error?.code).toBe(-32000);
  });

  it('the control API unregisters an agent, sets its dimensions and decay; the total follows', async () => {
    const agent = agentTarget(fleet.chain('simnet').simChain)!;
    const before = (await rpc(url('cur'), 'claw_getAgentScore', [agent])).result as Record<string, number>;
    const dims = { activity: 2_000, uptime: 2_000, block_production: 2_000, economic: 2_000, platform: 2_000 };
    expect((await post(`/networks/simnet/agents/${agent}`, { dimensions: dims, decayFactor: 5_000 })).status).toBe(200);
    const after = (await rpc(url('cur'), 'claw_getAgentScore', [agent])).result as Record<string, number>;
    expect(after).toMatchObject({ ...dims, decay_factor: 5_000, total: 1_000 });
    expect(after.total).toBeLessThan(before.total!);
    expect((await post(`/networks/simnet/agents/${agent}`, { registered: false })).status).toBe(200);
    expect((await rpc(url('cur'), 'claw_getAgent', [agent])).result).toBeNull();
    expect((await post(`/networks/simnet/agents/${agent}`, { registered: true })).status).toBe(200);
    expect((await rpc(url('cur'), 'claw_getAgent', [agent])).result).not.toBeNull();
    expect((await post(`/networks/simnet/agents/${agent}`, { decayFactor: 10_001 })).status).toBe(400);
    expect(HALVING_EPOCHS).toBe(2_880);
  });
});
