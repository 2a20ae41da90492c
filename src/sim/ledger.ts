// The state machine of one simulated network: validators, miners, balances and unbonding,
// moved forward block by block (in spans: nothing changes inside an epoch except by a control
// action, which first brings the state to the tip). Epoch boundaries elect the active set, turn
// missed slots into a one-epoch reward exclusion, release jails and settle the miners.
import {
  countSlots,
  blockPayouts,
  electActiveSet,
  isJailed,
  type RewardEntry,
  type Seat,
  type ValidatorState,
} from './ledger-validators.js';
import { runMinerBlocks, settleMiner, type MinerState } from './ledger-miners.js';
import { RewardHistory } from './reward-history.js';

export interface UnbondingEntry {
  address: string;
  amount: bigint;
  releaseHeight: number;
}

export interface LedgerSeed {
  epochBlocks: number;
  unbondingBlocks: number;
  /** The state is as of the end of this block. */
  startHeight: number;
  /** Tokens minted per block (base units); half to validators, half to miners. */
  blockReward: (height: number) => bigint;
  /** Heights at which the block reward changes (spans are cut there). */
  rewardChangeHeights: number[];
  validators: ValidatorState[];
  miners: MinerState[];
  balances: Map<string, bigint>;
  unbonding: Map<string, UnbondingEntry[]>;
}

export class Ledger {
  readonly epochBlocks: number;
  readonly unbondingBlocks: number;
  readonly validators = new Map<string, ValidatorState>();
  readonly miners = new Map<string, MinerState>();
  readonly balances: Map<string, bigint>;
  readonly unbonding: Map<string, UnbondingEntry[]>;
  readonly rewards = new RewardHistory();
  /** false: the reward pool is empty and nobody is paid. */
  rewardPool = true;
  private _height: number;
  private _seats: Seat[];
  /** Validators found offline in the previous epoch: unpaid this epoch. */
  private excluded = new Set<string>();
  private payouts: RewardEntry[] = [];
  private payoutPool = 0n;
  private minerShare = 0n;

  constructor(private readonly seed: LedgerSeed) {
    this.epochBlocks = seed.epochBlocks;
    this.unbondingBlocks = seed.unbondingBlocks;
    for (const v of seed.validators) this.validators.set(v.address, v);
    for (const m of seed.miners) this.miners.set(m.address, m);
    this.balances = seed.balances;
    this.unbonding = seed.unbonding;
    this._height = seed.startHeight;
    this._seats = electActiveSet(this.validators.values(), this.epoch);
    this.startEpochState();
    this.rewards.record(0, this._height, this.payouts);
  }

  get height(): number {
    return this._height;
  }

  get epoch(): number {
    return Math.floor(this._height / this.epochBlocks);
  }

  /** The active set of the current epoch, heaviest first. */
  get seats(): readonly Seat[] {
    return this._seats;
  }

  isExcluded(address: string): boolean {
    return this.excluded.has(address);
  }

  isJailed(v: ValidatorState): boolean {
    return isJailed(v, this.epoch);
  }

  balance(address: string): bigint {
    return this.balances.get(address) ?? 0n;
  }

  credit(address: string, amount: bigint): void {
    if (amount !== 0n) this.balances.set(address, this.balance(address) + amount);
  }

  /** Runs every block up to `target`. */
  advanceTo(target: number): void {
    while (this._height < target) {
      const from = this._height + 1;
      if (from % this.epochBlocks === 0) this.boundary(from);
      const epochEnd = (Math.floor(from / this.epochBlocks) + 1) * this.epochBlocks - 1;
      const cut = this.seed.rewardChangeHeights.filter((h) => h > from && h <= epochEnd).map((h) => h - 1);
      const to = Math.min(target, epochEnd, ...cut);
      this.runSpan(from, to);
      this._height = to;
    }
  }

  /** Payouts changed mid-epoch (a control action): later blocks pay the new list. */
  refreshPayouts(): void {
    this.payouts = this.computePayouts(this._height + 1);
  }

  private runSpan(from: number, to: number): void {
    if (this.rewardPool && this.seed.blockReward(from) / 2n !== this.payoutPool) this.refreshPayouts();
    const blocks = BigInt(to - from + 1);
    countSlots(this._seats, this.validators, from, to);
    for (const p of this.payouts) this.credit(p.recipient, p.amount * blocks);
    this.rewards.record(from, to, this.payouts);
    const epoch = Math.floor(from / this.epochBlocks);
    const epochStart = epoch * this.epochBlocks;
    for (const m of this.miners.values()) runMinerBlocks(m, epoch, epochStart, from, to, this.minerShare);
  }

  /** Before block `height`, the first of a new epoch: settle the old epoch, set up the new one. */
  private boundary(height: number): void {
    const epoch = height / this.epochBlocks;
    const settled: RewardEntry[] = [];
    for (const m of this.miners.values()) {
      const paid = settleMiner(m, epoch);
      if (paid > 0n) {
        this.credit(m.address, paid);
        settled.push({ recipient: m.address, amount: paid, rewardType: 'mining_reward_confirmed' });
      }
    }
    this.rewards.settle(height, settled);
    this.excluded = new Set(this._seats.filter((s) => this.validators.get(s.address)?.missed).map((s) => s.address));
    for (const v of this.validators.values()) {
      if (v.jailedUntilEpoch !== undefined && epoch >= v.jailedUntilEpoch) v.jailedUntilEpoch = undefined;
    }
    this._seats = electActiveSet(this.validators.values(), epoch);
    this.startEpochState(height);
  }

  private startEpochState(height = this._height): void {
    for (const v of this.validators.values()) {
      v.expected = 0;
      v.produced = 0;
      v.missed = false;
    }
    const activeMiners = [...this.miners.values()].filter((m) => m.active).length;
    this.minerShare = this.seed.blockReward(height) / 2n / BigInt(Math.max(1, activeMiners));
    this.payouts = this.computePayouts(height);
  }

  private computePayouts(height: number): RewardEntry[] {
    this.payoutPool = this.rewardPool ? this.seed.blockReward(height) / 2n : 0n;
    const paid = this._seats
      .filter((s) => !this.excluded.has(s.address))
      .map((s) => this.validators.get(s.address))
      .filter((v): v is ValidatorState => v !== undefined);
    return blockPayouts(paid, this.payoutPool);
  }
}
