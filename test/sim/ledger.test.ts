// The simulator's ledger over loopback: the watch methods answer in claw-node 0.5.8's shapes,
// and epochs, the active set, rewards, the offline exclusion, miner check-ins and unbonding
// follow its rules (reference-node-facts.md, "Validators, miners and accounts").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimFleet } from '../../src/sim/index.js';
import { HEX64, getJson, http, manualClock, rpc, rpcRaw } from './helpers.js';
import { waitFor } from '../support/processes.js';

// Blocks per epoch: at least twice the largest active set, so every seat has a slot in the rest
// of an epoch from its second block.
const E = 44;
const BLOCK_MS = 1_000;
const clock = manualClock(1_700_000_000_000);
let fleet: SimFleet;
const url = (name: string) => fleet.node(name).url;
const tip = () => fleet.node('a').height();

/** Moves the clock to the next height with `height % E === offset`. */
function toEpochOffset(offset: number): number {
  const h = tip();
  const next = h - (h % E) + offset + (h % E >= offset ? E : 0);
  clock.advance((next - h) * BLOCK_MS);
  return next;
}
const nextEpoch = () => toEpochOffset(0);

type Detail = {
  weight: number;
  uptime: { produced_blocks: number; expected_blocks: number; signed_blocks: number; uptime_pct: number } | null;
  jailed: boolean;
  commission_bps: number;
};
const detail = async (a: string) => (await rpc(url('a'), 'claw_getValidatorDetail', [a])).result as Detail | null;
const rewards = async (h: number) =>
  (await rpc(url('a'), 'claw_getBlockRewards', [h])).result as
    { recipient: string; amount: string; rewardType: string }[] | null;
const seats = async () =>
  ((await rpc(url('a'), 'claw_getValidators')).result as { address: string; weight: number }[]).map((v) => v.address);
type Miner = {
  active: boolean;
  consecutive_misses: number;
  epoch_attendance: number;
  reputation_bps: number;
  last_checkin_epoch: number;
  pending_epoch: number;
};
const minerInfo = async (a: string) => (await rpc(url('a'), 'claw_getMinerInfo', [a])).result as Miner | null;
const control = (path: string, body: unknown) =>
  http(`${fleet.controlUrl!}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  fleet = await SimFleet.start(
    [
      { name: 'a', network: 'net' },
      { name: 'b', network: 'net' },
      { name: 'busy', network: 'net' },
    ],
    { blockTimeMs: BLOCK_MS, epochBlocks: E, unbondingBlocks: 50, now: clock.now, controlPort: 0 },
  );
  toEpochOffset(5);
});
afterAll(() => fleet.close());

describe('shapes of the watch methods', () => {
  it('getValidatorDetail: the real fields for a staked validator, null without stake', async () => {
    const [first] = await seats();
    const raw = await rpcRaw(url('a'), 'claw_getValidatorDetail', [first!]);
    const d = JSON.parse(raw.body).result as Record<string, unknown>;
    expect(Object.keys(d).sort()).toEqual([
      'address',
      'agentScore',
      'commission_bps',
      'delegatedBy',
      'jailed',
      'stake',
      'uptime',
      'weight',
    ]);
    expect(d.address).toBe(first);
    expect(raw.body).toContain(`"stake":"${d.stake as string}"`);
    expect(d.delegatedBy === null || HEX64.test(d.delegatedBy as string)).toBe(true);
    expect(Object.keys(d.uptime as object).sort()).toEqual([
      'expected_blocks',
      'produced_blocks',
      'signed_blocks',
      'uptime_pct',
    ]);
    expect(d.jailed).toBe(false);
    expect(await detail('00'.repeat(32))).toBeNull();
  });

  it('refuses an address that is not 64 lowercase hex with -32000 over HTTP 200', async () => {
    const [first] = await seats();
    for (const bad of [`0x${first!}`, first!.toUpperCase(), first!.slice(2), 'zz'.repeat(32), 42]) {
      for (const m of ['claw_getValidatorDetail', 'claw_getMinerInfo', 'claw_getBalance', 'claw_getUnbonding']) {
        const r = await rpcRaw(url('a'), m, [bad]);
        expect(r.status).toBe(200);
        expect(JSON.parse(r.body).error, `${m} ${String(bad)}`).toEqual({ code: -32000, message: 'invalid params' });
      }
    }
  });

  it('getBlockRewards: every active validator paid in a block, null past the node height', async () => {
    const h = tip();
    const list = (await rewards(h))!;
    const paid = new Set(
      list
        .filter((r) => r.rewardType === 'block_reward' || r.rewardType === 'validator_commission')
        .map((r) => r.recipient),
    );
    expect([...paid].sort()).toEqual((await seats()).sort());
    for (const r of list) {
      expect(Object.keys(r).sort()).toEqual(['amount', 'recipient', 'rewardType']);
      expect(r.recipient).toMatch(HEX64);
      expect(r.amount).toMatch(/^[0-9]+$/);
      expect(['block_reward', 'validator_commission', 'delegator_reward', 'mining_reward_confirmed']).toContain(
        r.rewardType,
      );
    }
    expect(await rewards(h + 1)).toBeNull();
    expect((await rpc(url('a'), 'claw_getBlockRewards', ['ten'])).error).toEqual({
      code: -32000,
      message: 'invalid params',
    });
  });

  it('getMinerInfo: the serde form, pending_rewards an exact JSON number beyond 2^53', async () => {
    const { miner } = fleet.chain('net').watchTargets();
    const big = '123456789012345678901';
    expect((await control(`/networks/net/miners/${miner}`, { pendingRewards: big })).status).toBe(200);
    const raw = await rpcRaw(url('a'), 'claw_getMinerInfo', [miner]);
    expect(raw.body).toContain(`"pending_rewards":${big},`);
    const info = JSON.parse(raw.body).result as Record<string, unknown>;
    expect(Object.keys(info).sort()).toEqual(
      [
        'active',
        'address',
        'consecutive_misses',
        'epoch_attendance',
        'ip_prefix',
        'last_checkin_epoch',
        'last_heartbeat',
        'name',
        'pending_epoch',
        'pending_rewards',
        'registered_at',
        'reputation_bps',
        'tier',
      ].sort(),
    );
    expect(info.address).toEqual(Array.from(Buffer.from(miner, 'hex')));
    expect((info.ip_prefix as number[]).length).toBe(3);
    expect(info.tier).toBe('Online');
    expect(info.epoch_attendance).toBe(0xffff);
    expect(info.pending_epoch).toBe(Math.floor(tip() / E));
    expect(await minerInfo('00'.repeat(32))).toBeNull();
  });

  it('getBalance is a u128 string; getUnbonding lists entries under the owner', async () => {
    const { account } = fleet.chain('net').watchTargets();
    expect((await rpc(url('a'), 'claw_getBalance', [account])).result).toMatch(/^[1-9][0-9]*$/);
    expect((await rpc(url('a'), 'claw_getUnbonding', [account])).result).toEqual([]);
  });

  it('refuses a batch with HTTP 422 and answers 100 requests at once, no more', async () => {
    const batch = await http(url('a'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'claw_blockNumber', params: [] }]),
    });
    expect(batch.status).toBe(422);
    // Hanging requests hold their slots: the 101st waits until a slot frees.
    const node = fleet.node('busy');
    node.setFault('hang');
    const answers = Array.from({ length: 130 }, () =>
      rpc(node.url, 'claw_blockNumber').then(
        (a) => a.result,
        () => 'dropped',
      ),
    );
    await waitFor('130 requests, 100 of them held', () => node.requestCount() === 130 && node.gate.inFlight === 100, {
      timeoutMs: 10_000,
      intervalMs: 20,
    });
    expect(node.gate.peakInFlight).toBe(100);
    node.setFault('none');
    const results = await Promise.all(answers);
    expect(results.filter((r) => r === 'dropped').length).toBe(100);
    expect(results.filter((r) => typeof r === 'number').length).toBe(30);
    expect(node.gate.inFlight).toBe(0);
  });
});

describe('the state machine at epoch boundaries', () => {
  it('nodes of a network agree; /health reports the epoch of epochBlocks', async () => {
    const [first] = await seats();
    expect((await rpc(url('b'), 'claw_getValidatorDetail', [first!])).result).toEqual(await detail(first!));
    expect((await getJson(`${url('a')}/health`)).epoch).toBe(Math.floor(tip() / E));
  });

  it('uptime counts this epoch only and is null for the first block after a boundary', async () => {
    const set = await seats();
    nextEpoch();
    for (const a of set) expect((await detail(a))!.uptime).toBeNull();
    clock.advance(Math.round(E * 0.6) * BLOCK_MS);
    const total = (await Promise.all(set.map(detail))).reduce((n, d) => n + d!.uptime!.expected_blocks, 0);
    expect(total).toBe((tip() % E) + 1);
  });

  it('offline: paid for the rest of the epoch, unpaid the next, paid again after a clean epoch', async () => {
    toEpochOffset(1);
    const v = (await seats())[1]!;
    expect((await control(`/networks/net/validators/${v}`, { online: false })).status).toBe(200);
    toEpochOffset(E - 1);
    expect((await rewards(tip()))!.some((r) => r.recipient === v)).toBe(true);
    const d = (await detail(v))!;
    expect(d.uptime!.produced_blocks).toBeLessThan(d.uptime!.expected_blocks);
    nextEpoch();
    expect(await seats()).toContain(v);
    expect((await rewards(tip()))!.some((r) => r.recipient === v)).toBe(false);
    // Back before its first slot of this epoch (block 0 is the first seat's): this epoch stays
    // unpaid, the next one pays.
    await control(`/networks/net/validators/${v}`, { online: true });
    toEpochOffset(E - 1);
    expect((await rewards(tip()))!.some((r) => r.recipient === v)).toBe(false);
    nextEpoch();
    clock.advance(BLOCK_MS);
    expect((await rewards(tip()))!.some((r) => r.recipient === v)).toBe(true);
  });

  it('leaves the active set at the next boundary below 10,000 tokens of stake; jailed for one epoch', async () => {
    const set = await seats();
    const low = set[set.length - 1]!;
    await control(`/networks/net/validators/${low}`, { stake: String(9_999n * 10n ** 9n) });
    expect(await seats()).toContain(low);
    nextEpoch();
    expect(await seats()).not.toContain(low);
    expect((await detail(low))!.weight).toBe(0);
    expect((await detail(low))!.uptime).toBeNull();

    const jailed = set[0]!;
    await control(`/networks/net/validators/${jailed}`, { jailed: true });
    expect((await detail(jailed))!.jailed).toBe(true);
    nextEpoch();
    expect(await seats()).not.toContain(jailed);
    nextEpoch();
    expect((await detail(jailed))!.jailed).toBe(false);
    expect(await seats()).toContain(jailed);
  });

  it('commission changes at once', async () => {
    const v = (await seats())[0]!;
    await control(`/networks/net/validators/${v}`, { commissionBps: 1_234 });
    expect((await detail(v))!.commission_bps).toBe(1_234);
  });

  it('a miner that stops checking in: misses, -1% reputation, inactive after 6; back: reduced reward', async () => {
    const { miner } = fleet.chain('net').watchTargets();
    toEpochOffset(E - 1);
    const before = (await minerInfo(miner))!;
    await control(`/networks/net/miners/${miner}`, { checkins: false });
    for (let k = 1; k <= 6; k++) {
      nextEpoch();
      const m = (await minerInfo(miner))!;
      // The epoch of the stop was checked in already; misses start with the next one.
      expect(m.consecutive_misses).toBe(k - 1);
      expect(m.active).toBe(k - 1 < 6);
    }
    nextEpoch();
    const out = (await minerInfo(miner))!;
    expect(out.consecutive_misses).toBe(6);
    expect(out.active).toBe(false);
    expect(out.reputation_bps).toBe(Math.max(2_000, before.reputation_bps - 600));
    expect(out.epoch_attendance & 0b111111).toBe(0);
    expect(out.last_checkin_epoch).toBe(Math.floor(tip() / E) - 7);

    toEpochOffset(E - 1);
    await control(`/networks/net/miners/${miner}`, { checkins: true });
    expect((await minerInfo(miner))!.last_checkin_epoch).toBe(Math.floor(tip() / E));
    nextEpoch();
    const back = (await minerInfo(miner))!;
    expect(back).toMatchObject({ active: true, consecutive_misses: 0 });
    expect(back.epoch_attendance & 1).toBe(1);
  });

  it('drain sets a balance; unbonding stays listed past release until claimed', async () => {
    const { account } = fleet.chain('net').watchTargets();
    await control(`/networks/net/accounts/${account}`, { balance: '10000000000' });
    expect((await rpc(url('a'), 'claw_getBalance', [account])).result).toBe('10000000000');
    const v = (await seats())[0]!;
    const h = tip();
    expect(
      (await control(`/networks/net/accounts/${account}/unbond`, { amount: '5000000000', validator: v })).status,
    ).toBe(200);
    const listed = (await rpc(url('a'), 'claw_getUnbonding', [account])).result;
    expect(listed).toEqual([{ address: v, amount: '5000000000', releaseHeight: h + 50 }]);
    clock.advance(60 * BLOCK_MS);
    expect((await rpc(url('b'), 'claw_getUnbonding', [account])).result).toEqual(listed);
    await control(`/networks/net/accounts/${account}/claim`, {});
    expect((await rpc(url('a'), 'claw_getUnbonding', [account])).result).toEqual([]);
    expect((await rpc(url('a'), 'claw_getBalance', [account])).result).toBe('15000000000');
  });

  it('an empty reward pool pays nobody', async () => {
    await control('/networks/net/rewards', { funded: false });
    clock.advance(BLOCK_MS);
    expect(await rewards(tip())).toEqual([]);
    await control('/networks/net/rewards', { funded: true });
    clock.advance(BLOCK_MS);
    expect((await rewards(tip()))!.length).toBeGreaterThan(0);
  });
});
