// The state a simulated network's ledger starts from, derived from the chain's seeded draws so
// every run (and every process) of a network starts the same.
import { hash32, hex32 } from './rng.js';
import { warmMiner, type MinerHabit } from './ledger-miners.js';
import type { ValidatorState } from './ledger-validators.js';
import type { LedgerSeed, UnbondingEntry } from './ledger.js';

export interface ChainDraws {
  network: string;
  startHeight: number;
  epochBlocks: number;
  unbondingBlocks: number;
  blockReward: (height: number) => bigint;
  rewardChangeHeights: number[];
  validators: ReadonlyArray<{
    address: string;
    stake: bigint;
    selfStake: bigint;
    agentScore: number;
    commission: number;
  }>;
  miners: ReadonlyArray<{ address: string; registeredAt: number }>;
  /** Miners below this index check in (most every epoch); the rest have stopped for good. */
  activeBase: number;
  balances: ReadonlyMap<string, bigint>;
}

/** Settled epochs before the start: enough for 16-bit attendance to reflect each habit. */
const WARM_EPOCHS = 16;

function habitOf(address: string, index: number, activeBase: number): MinerHabit {
  if (index >= activeBase) return 'never';
  return hash32(`${address}:habit`) % 10 === 0 ? 'flaky' : 'always';
}

function seedValidator(network: string, v: ChainDraws['validators'][number], i: number): ValidatorState {
  return {
    address: v.address,
    selfStake: v.selfStake,
    delegated: v.stake - v.selfStake,
    agentScore: v.agentScore,
    commissionBps: v.commission,
    // Some validators run an owner's stake: paid as commission, the rest to the owner.
    delegatedBy: i % 4 === 2 ? hex32(`${network}:owner:${i}`) : null,
    online: true,
    expected: 0,
    produced: 0,
    missed: false,
  };
}

function seedUnbonding(d: ChainDraws): Map<string, UnbondingEntry[]> {
  const out = new Map<string, UnbondingEntry[]>();
  d.validators.forEach((v, i) => {
    if (i % 3 !== 1) return;
    // One entry maturing soon after the start, one halfway through the unbonding period.
    out.set(v.address, [
      { address: v.address, amount: v.selfStake / 10n, releaseHeight: d.startHeight + 7 * d.epochBlocks },
      {
        address: v.address,
        amount: v.selfStake / 20n,
        releaseHeight: d.startHeight + Math.floor(d.unbondingBlocks / 2),
      },
    ]);
  });
  return out;
}

export function ledgerSeed(d: ChainDraws): LedgerSeed {
  const offsetSpan = Math.max(1, Math.min(d.epochBlocks, 10));
  const miners = d.miners.map((m, i) => {
    const h = hash32(`${m.address}:rig`);
    return warmMiner(
      {
        address: m.address,
        name: `rig-${i}`,
        registeredAt: m.registeredAt,
        ipPrefix: [10 + (h % 200), (h >>> 8) % 256, (h >>> 16) % 256],
        habit: habitOf(m.address, i, d.activeBase),
        stopped: false,
        reputationBps: 6_000 + (h % 4_001),
        checkinOffset: h % offsetSpan,
      },
      d.startHeight,
      d.epochBlocks,
      WARM_EPOCHS,
    );
  });
  return {
    epochBlocks: d.epochBlocks,
    unbondingBlocks: d.unbondingBlocks,
    startHeight: d.startHeight,
    blockReward: d.blockReward,
    rewardChangeHeights: d.rewardChangeHeights,
    validators: d.validators.map((v, i) => seedValidator(d.network, v, i)),
    miners,
    balances: new Map(d.balances),
    unbonding: seedUnbonding(d),
  };
}
