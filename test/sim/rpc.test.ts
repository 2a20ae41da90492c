import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NATIVE_DECIMALS, SimFleet, methodsOf } from '../../src/sim/index.js';
import { HEX64, http, manualClock, rpc, rpcRaw } from './helpers.js';

const clock = manualClock();
let fleet: SimFleet;
const url = (name: string) => fleet.node(name).url;

beforeAll(async () => {
  fleet = await SimFleet.start(
    [
      { name: 'cur', build: 'current' },
      { name: 'stk', build: 'staking' },
      { name: 'old', build: 'earliest' },
      { name: 'chainns', build: 'current', namespace: 'chain' },
      { name: 'main', build: 'current', network: 'mainnet' },
      { name: 'lag', build: 'current', heightOffset: 7 },
    ],
    { blockTimeMs: 3_000, now: clock.now },
  );
});
afterAll(() => fleet.close());

describe('namespaces and method sets per build', () => {
  it('uses claw_ for current and staking, clw_ for earliest, and a configured word', async () => {
    for (const [node, ns] of [
      ['cur', 'claw'],
      ['stk', 'claw'],
      ['old', 'clw'],
      ['chainns', 'chain'],
    ] as const) {
      const ok = await rpc(url(node), `${ns}_blockNumber`);
      expect(typeof ok.result, node).toBe('number');
      expect(ok.result).toBe(fleet.node(node).height());
      for (const other of ['claw', 'clw', 'chain'].filter((w) => w !== ns)) {
        const r = await rpc(url(node), `${other}_blockNumber`);
        expect(r.error, `${node} ${other}`).toEqual({
          code: -32000,
          message: `method not found: ${other}_blockNumber`,
        });
      }
    }
  });

  it('offers exactly the methods of its build', async () => {
    const earliest = methodsOf('earliest');
    const staking = methodsOf('staking');
    const current = methodsOf('current');
    expect(earliest).not.toContain('getValidators');
    expect(staking).toEqual(expect.arrayContaining([...earliest, 'getStake', 'getUnbonding', 'getValidators']));
    expect(current).toEqual(
      expect.arrayContaining([
        ...staking,
        'getMiningStats',
        'getMiners',
        'getMinerInfo',
        'getAgentScore',
        'getUserDelegations',
        'getValidatorDetail',
        'totalSupply',
      ]),
    );

    // Over the wire: a method the build lacks is "method not found", not another error.
    const oldValidators = await rpc(url('old'), 'clw_getValidators');
    expect(oldValidators.error).toEqual({ code: -32000, message: 'method not found: clw_getValidators' });
    const stkMining = await rpc(url('stk'), 'claw_getMiningStats');
    expect(stkMining.error).toEqual({ code: -32000, message: 'method not found: claw_getMiningStats' });
    const stkValidators = await rpc(url('stk'), 'claw_getValidators');
    expect(Array.isArray(stkValidators.result)).toBe(true);
    const curMining = await rpc(url('cur'), 'claw_getMiningStats');
    expect(curMining.error).toBeUndefined();
  });
});

describe('JSON-RPC error behaviour', () => {
  it('answers an unknown method with HTTP 200 and -32000 "method not found: <method>", echoing the id', async () => {
    const r = await rpcRaw(url('cur'), 'claw_noSuchThing', [], 'abc');
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({
      jsonrpc: '2.0',
      id: 'abc',
      error: { code: -32000, message: 'method not found: claw_noSuchThing' },
    });
  });

  it('answers wrong params with -32000 "invalid params"', async () => {
    for (const [method, params] of [
      ['claw_getBalance', []],
      ['claw_getBalance', [42]],
      ['claw_getBalance', ['0xnothex']],
      ['claw_getBlockByNumber', ['ten']],
      ['claw_getMiners', ['yes', 10, 0]],
      ['claw_sendTransaction', ['zz']],
    ] as const) {
      const r = await rpcRaw(url('cur'), method, [...params]);
      expect(r.status, method).toBe(200);
      expect(JSON.parse(r.body).error, `${method} ${JSON.stringify(params)}`).toEqual({
        code: -32000,
        message: 'invalid params',
      });
    }
  });

  it('answers jsonrpc other than "2.0" with -32600', async () => {
    const r = await http(url('cur'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"1.0","id":7,"method":"claw_blockNumber","params":[]}',
    });
    expect(r.status).toBe(200);
    const body = JSON.parse(r.body);
    expect(body.id).toBe(7);
    expect(body.error.code).toBe(-32600);
    expect(body.result).toBeUndefined();
  });

  it('refuses a POST without Content-Type: application/json with 415 plain text', async () => {
    for (const headers of [{}, { 'content-type': 'text/plain' }] as Record<string, string>[]) {
      const r = await http(url('cur'), {
        method: 'POST',
        headers,
        body: '{"jsonrpc":"2.0","id":1,"method":"claw_blockNumber","params":[]}',
      });
      expect(r.status).toBe(415);
      expect(String(r.headers['content-type'])).toMatch(/^text\/plain/);
      expect(() => JSON.parse(r.body)).toThrow();
    }
    // A charset parameter is still JSON.
    const ok = await http(url('cur'), {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: '{"jsonrpc":"2.0","id":1,"method":"claw_blockNumber","params":[]}',
    });
    expect(ok.status).toBe(200);
  });

  it('answers a body that is not JSON with 400 plain text', async () => {
    const r = await http(url('cur'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc": "2.0", id',
    });
    expect(r.status).toBe(400);
    expect(String(r.headers['content-type'])).toMatch(/^text\/plain/);
    expect(r.body.length).toBeGreaterThan(0);
  });

  it('answers faucet on a mainnet-like network with an error, and pays out elsewhere', async () => {
    const addr = 'ab'.repeat(32);
    const main = await rpc(url('main'), 'claw_faucet', [addr]);
    expect(main.error).toEqual({ code: -32000, message: 'faucet is disabled on this network' });
    const test = await rpc(url('cur'), 'claw_faucet', [addr]);
    expect(test.error).toBeUndefined();
    expect((test.result as { txHash: string }).txHash).toMatch(HEX64);
  });
});

describe('result shapes', () => {
  it('getValidators: exact shape, u128 stakes beyond 2^53 kept exact in the raw body', async () => {
    const r = await rpcRaw(url('cur'), 'claw_getValidators');
    const body = JSON.parse(r.body) as { result: Record<string, unknown>[] };
    expect(body.result.length).toBeGreaterThanOrEqual(4);
    expect(body.result.length).toBeLessThanOrEqual(21);
    for (const v of body.result) {
      expect(Object.keys(v).sort()).toEqual(['address', 'agentScore', 'stake', 'weight']);
      expect(v.address).toMatch(HEX64);
      expect(v.stake).toMatch(/^[1-9][0-9]*$/);
      expect(BigInt(v.stake as string) > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
      expect(Number.isInteger(v.weight)).toBe(true);
      expect(Number.isInteger(v.agentScore)).toBe(true);
      // Strings in the raw text, never numbers: a float would lose the low digits.
      expect(r.body).toContain(`"stake":"${v.stake as string}"`);
    }
    // At least one stake whose low digits a float64 cannot hold.
    expect(body.result.some((v) => BigInt(Number(v.stake)) !== BigInt(v.stake as string))).toBe(true);
  });

  it('getValidators: stakes fit the native token (9 decimals): together below the total supply', async () => {
    for (const node of ['cur', 'main']) {
      const validators = (await rpc(url(node), 'claw_getValidators')).result as { stake: string; weight: number }[];
      const staked = validators.reduce((sum, v) => sum + BigInt(v.stake), 0n);
      const supply = BigInt((await rpc(url(node), 'claw_totalSupply')).result as string);
      expect(staked < supply, `${node}: ${staked} staked of ${supply}`).toBe(true);
      // The weight: 70% stake (relative to the heaviest, in basis points), 30% agent score.
      const max = validators.reduce((m, v) => (BigInt(v.stake) > m ? BigInt(v.stake) : m), 0n);
      for (const v of validators as { stake: string; weight: number; agentScore: number }[]) {
        expect(v.weight).toBe(Math.round(0.7 * Number((BigInt(v.stake) * 10_000n) / max) + 0.3 * v.agentScore));
      }
      // Heaviest first.
      for (let i = 1; i < validators.length; i++)
        expect(validators[i - 1]!.weight).toBeGreaterThanOrEqual(validators[i]!.weight);
      expect(BigInt(validators[0]!.stake) >= 10_000n * 10n ** BigInt(NATIVE_DECIMALS)).toBe(true);
    }
  });

  it('getMiningStats: exact shape and consistent values', async () => {
    const { result } = await rpc(url('cur'), 'claw_getMiningStats');
    const s = result as Record<string, unknown>;
    expect(Object.keys(s).sort()).toEqual([
      'activeMiners',
      'currentBlockReward',
      'miningUpgradeHeight',
      'totalMiners',
      'upgraded',
    ]);
    expect(Number.isInteger(s.totalMiners)).toBe(true);
    expect(Number.isInteger(s.activeMiners)).toBe(true);
    expect(s.activeMiners as number).toBeLessThanOrEqual(s.totalMiners as number);
    expect(s.currentBlockReward).toMatch(/^[0-9]+$/);
    expect(s.miningUpgradeHeight as number).toBeGreaterThan(fleet.node('cur').height());
    expect(s.upgraded).toBe(false);
  });

  it('nodes of one network agree; a lagging node reports a lower height', async () => {
    const a = await rpc(url('cur'), 'claw_getValidators');
    const b = await rpc(url('lag'), 'claw_getValidators');
    expect(b.result).toEqual(a.result);
    const hc = (await rpc(url('cur'), 'claw_blockNumber')).result as number;
    const hl = (await rpc(url('lag'), 'claw_blockNumber')).result as number;
    expect(hc - hl).toBe(7);
    const other = await rpc(url('main'), 'claw_getValidators');
    expect(other.result).not.toEqual(a.result);
  });

  it('answers the other methods plausibly: null for missing things, data for known ones', async () => {
    const u = url('cur');
    const unknown = '00'.repeat(32);
    const h = fleet.node('cur').height();
    const block = (await rpc(u, 'claw_getBlockByNumber', [h])).result as Record<string, unknown>;
    expect(block.height).toBe(h);
    expect(block.hash).toMatch(HEX64);
    expect((await rpc(u, 'claw_getBlockByNumber', [h + 1000])).result).toBeNull();
    for (const m of [
      'claw_getAgent',
      'claw_getMinerInfo',
      'claw_getValidatorDetail',
      'claw_getTransactionReceipt',
      'claw_getTokenInfo',
    ]) {
      const r = await rpc(u, m, [unknown]);
      expect(r.error, m).toBeUndefined();
      expect(r.result, m).toBeNull();
    }
    expect((await rpc(u, 'claw_getBalance', [unknown])).result).toBe('0');
    expect((await rpc(u, 'claw_getReputation', [unknown])).result).toEqual([]);

    const validators = (await rpc(u, 'claw_getValidators')).result as { address: string; stake: string }[];
    const v = validators[0]!;
    expect((await rpc(u, 'claw_getStake', [v.address])).result).toBe(v.stake);
    const detail = (await rpc(u, 'claw_getValidatorDetail', [v.address])).result as Record<string, unknown>;
    expect(detail.stake).toBe(v.stake);
    expect(detail.weight).toBe((v as unknown as { weight: number }).weight);

    const miners = (await rpc(u, 'claw_getMiners', [true, 5, 0])).result as { address: string; active: boolean }[];
    expect(miners.length).toBe(5);
    expect(miners.every((m) => m.active)).toBe(true);
    const stats = (await rpc(u, 'claw_getMiningStats')).result as { activeMiners: number; totalMiners: number };
    const allActive = (await rpc(u, 'claw_getMiners', [true, 500, 0])).result as unknown[];
    expect(allActive.length).toBe(Math.min(500, stats.activeMiners));
    const info = (await rpc(u, 'claw_getMinerInfo', [miners[0]!.address])).result as Record<string, unknown>;
    // The serde form: the address as its 32 bytes.
    expect(Buffer.from(info.address as number[]).toString('hex')).toBe(miners[0]!.address);
    expect(info.active).toBe(true);

    const score = (await rpc(u, 'claw_getAgentScore', [v.address])).result as Record<string, unknown>;
    expect(Object.keys(score).sort()).toEqual([
      'activity',
      'block_production',
      'decay_factor',
      'economic',
      'platform',
      'total',
      'uptime',
    ]);
    expect(BigInt((await rpc(u, 'claw_totalSupply')).result as string) > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);

    // A submitted transaction gets a receipt once the next block exists.
    const txHash = (await rpc(u, 'claw_sendTransaction', ['deadbeef'])).result as string;
    expect(txHash).toMatch(HEX64);
    expect((await rpc(u, 'claw_getTransactionReceipt', [txHash])).result).toBeNull();
    clock.advance(3_000);
    const receipt = (await rpc(u, 'claw_getTransactionReceipt', [txHash])).result as Record<string, unknown>;
    expect(receipt.blockHeight).toBe(h + 1);
  });
});
