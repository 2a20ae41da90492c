// The ledger's rules as pure functions: the active-set election, slots, the miner settlement
// and reward multiplier, exact u128 JSON numbers.
import { describe, expect, it } from 'vitest';
import { electActiveSet, slotsIn, weightOf, UNIT, type ValidatorState } from '../../src/sim/ledger-validators.js';
import { multiplierBps, settleMiner, type MinerState } from '../../src/sim/ledger-miners.js';
import { stringifyExact } from '../../src/sim/rawjson.js';
import { SimFleet } from '../../src/sim/index.js';
import { manualClock } from './helpers.js';

const validator = (i: number, tokens: bigint, agentScore = 5_000): ValidatorState => ({
  address: i.toString(16).padStart(64, '0'),
  selfStake: tokens * UNIT,
  delegated: 0n,
  agentScore,
  commissionBps: 500,
  delegatedBy: null,
  online: true,
  expected: 0,
  produced: 0,
  missed: false,
});

const miner = (attendance: number, over: Partial<MinerState> = {}): MinerState => ({
  address: 'ab'.repeat(32),
  name: 'rig',
  registeredAt: 1,
  ipPrefix: [10, 0, 0],
  habit: 'always',
  stopped: false,
  active: true,
  reputationBps: 10_000,
  pending: 0n,
  pendingEpoch: 0,
  attendance,
  misses: 0,
  lastCheckinEpoch: 0,
  lastHeartbeat: 0,
  checkedIn: false,
  checkinOffset: 0,
  ...over,
});

describe('active set', () => {
  it('takes the top 21 by weight with at least 10,000 tokens staked, and no jailed one', () => {
    const vs = Array.from({ length: 25 }, (_, i) => validator(i + 1, BigInt(20_000 + i * 1_000)));
    vs.push(validator(99, 9_999n, 10_000));
    vs[24]!.jailedUntilEpoch = 8;
    const set = electActiveSet(vs, 7);
    expect(set.length).toBe(21);
    expect(set.map((s) => s.address)).not.toContain(vs[24]!.address);
    expect(set.map((s) => s.address)).not.toContain(vs[25]!.address);
    expect(set[0]!.address).toBe(vs[23]!.address);
    expect(electActiveSet(vs, 8).map((s) => s.address)[0]).toBe(vs[24]!.address);
  });

  it('weighs 70% stake (relative to the heaviest) and 30% reputation', () => {
    expect(weightOf(10n, 10n, 10_000)).toBe(10_000);
    expect(weightOf(5n, 10n, 0)).toBe(3_500);
    expect(weightOf(10n, 10n, 0)).toBe(7_000);
  });

  it('gives each of n seats the heights h with h % n === its place', () => {
    expect(slotsIn(0, 99, 21, 0)).toBe(5);
    expect(slotsIn(0, 99, 21, 20)).toBe(4);
    expect(slotsIn(5, 4, 3, 0)).toBe(0);
    for (const [from, to, n] of [
      [100, 199, 21],
      [7, 7, 4],
      [3, 50, 1],
      [1_234, 1_333, 19],
    ] as const) {
      for (let slot = 0; slot < n; slot++) {
        let count = 0;
        for (let h = from; h <= to; h++) if (h % n === slot) count++;
        expect(slotsIn(from, to, n, slot), `${from}..${to} of ${n}, slot ${slot}`).toBe(count);
      }
    }
  });
});

describe('miner settlement', () => {
  it('multiplier: 12 check-ins of 12 -> 1.0, 9-11 -> 0.8, 6-8 -> 0.5, fewer -> 0, inactive -> 0', () => {
    expect(multiplierBps(miner(0xfff))).toBe(10_000);
    expect(multiplierBps(miner(0xffff))).toBe(10_000);
    expect(multiplierBps(miner(0b111111111))).toBe(8_000);
    expect(multiplierBps(miner(0b111111))).toBe(5_000);
    expect(multiplierBps(miner(0b11111))).toBe(0);
    expect(multiplierBps(miner(0xfff, { active: false }))).toBe(0);
  });

  it('a miss forfeits pending rewards, costs 1% reputation down to 20%, and the sixth deactivates', () => {
    const m = miner(0xffff, { pending: 500n, reputationBps: 2_050 });
    expect(settleMiner(m, 1)).toBe(0n);
    expect(m).toMatchObject({ pending: 0n, misses: 1, reputationBps: 2_000, attendance: 0xfffe, active: true });
    for (let e = 2; e <= 6; e++) settleMiner(m, e);
    expect(m).toMatchObject({ misses: 6, reputationBps: 2_000, active: false });
    m.checkedIn = true;
    m.pending = 7n;
    expect(settleMiner(m, 7)).toBe(7n);
    expect(m).toMatchObject({ misses: 0, active: true, checkedIn: false });
    expect(m.attendance & 0b1111111).toBe(1);
  });
});

describe('exact JSON numbers', () => {
  it('writes bigints as bare integers with every digit', () => {
    expect(stringifyExact({ a: 340282366920938463463374607431768211455n, b: 'x', c: [1n] })).toBe(
      '{"a":340282366920938463463374607431768211455,"b":"x","c":[1]}',
    );
  });
});

describe('determinism', () => {
  it('two fleets on the same clock run the same ledger', async () => {
    const clock = manualClock(1_700_000_000_000);
    const opts = { blockTimeMs: 1_000, epochBlocks: 20, now: clock.now };
    const [a, b] = await Promise.all([
      SimFleet.start([{ name: 'x', network: 'n' }], opts),
      SimFleet.start([{ name: 'y', network: 'n' }], opts),
    ]);
    try {
      const t = a.chain('n').watchTargets();
      expect(b.chain('n').watchTargets()).toEqual(t);
      clock.advance(95_000);
      const la = a.chain('n').ledger();
      const lb = b.chain('n').ledger();
      expect(lb.seats).toEqual(la.seats);
      expect(lb.balance(t.validator)).toBe(la.balance(t.validator));
      expect(lb.miners.get(t.miner)).toEqual(la.miners.get(t.miner));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
