// What tests and the demo can do to a simulated network's ledger: the faults an operator meets
// (a validator's node goes down, a miner stops checking in, a wallet runs dry, stake is unbonded)
// and the events behind the rarer alerts (jailing, a commission change, a stake change, an empty
// reward pool). Every action first brings the ledger to the tip, so it takes effect from there.
import type { SimChain } from './chain.js';
import { checkIn, checksIn, type MinerState } from './ledger-miners.js';
import { UNIT, type ValidatorState } from './ledger-validators.js';
import type { Ledger, UnbondingEntry } from './ledger.js';
import { hash32 } from './rng.js';

export interface ValidatorChange {
  /** false: the validator misses its slots (and is unpaid for the epoch after one it missed). */
  online?: boolean;
  /** true: jailed now, out of the set at the next boundary, released at the one after. */
  jailed?: boolean;
  commissionBps?: number;
  /**
   * The total stake in base units (delegations kept when they fit under it, else withdrawn);
   * an unknown address becomes a candidate with it.
   */
  stake?: bigint;
  agentScore?: number;
}

export interface MinerChange {
  /** false: no more check-ins; true: checks in again from now on. */
  checkins?: boolean;
  /** Register an unknown address (inactive until its first check-in is settled). */
  register?: boolean;
  pendingRewards?: bigint;
}

export class ChainControl {
  constructor(private readonly chain: SimChain) {}

  get network(): string {
    return this.chain.network;
  }

  /** The chain itself: what is kept beside its ledger (delegations, agents, tokens, services) reads it. */
  get simChain(): SimChain {
    return this.chain;
  }

  /**
   * One validator, miner and account worth watching (the demo's picks): the third seat of the
   * active set, a miner that checks in every epoch, an agent's wallet holding some tokens.
   */
  watchTargets(): { validator: string; miner: string; account: string } {
    const ledger = this.chain.ledger();
    const seats = ledger.seats;
    const miner = [...ledger.miners.values()].find((m) => m.habit === 'always' && m.active && !m.stopped);
    const account = this.chain.agents.find((a) => ledger.balance(a.address) >= 100n * UNIT) ?? this.chain.agents[0]!;
    return {
      validator: seats[Math.min(2, seats.length - 1)]!.address,
      miner: miner!.address,
      account: account.address,
    };
  }

  /** The ledger at the tip (for reading its state in tests). */
  ledger(): Ledger {
    return this.chain.ledger();
  }

  validator(address: string, change: ValidatorChange): ValidatorState {
    const ledger = this.chain.ledger();
    let v = ledger.validators.get(address);
    if (!v) {
      if (change.stake === undefined) throw new Error(`unknown validator: ${address} (give a stake to create one)`);
      v = {
        address,
        selfStake: 0n,
        delegated: 0n,
        agentScore: 5_000,
        commissionBps: 500,
        delegatedBy: null,
        online: true,
        expected: 0,
        produced: 0,
        missed: false,
      };
      ledger.validators.set(address, v);
    }
    if (change.online !== undefined) v.online = change.online;
    if (change.jailed !== undefined) v.jailedUntilEpoch = change.jailed ? ledger.epoch + 2 : undefined;
    if (change.commissionBps !== undefined) v.commissionBps = bounded(change.commissionBps, 0, 10_000, 'commissionBps');
    if (change.agentScore !== undefined) v.agentScore = bounded(change.agentScore, 0, 10_000, 'agentScore');
    if (change.stake !== undefined) {
      if (change.stake < 0n) throw new Error('stake must not be negative');
      if (change.stake < v.delegated) v.delegated = 0n;
      v.selfStake = change.stake - v.delegated;
    }
    ledger.refreshPayouts();
    return v;
  }

  miner(address: string, change: MinerChange): MinerState {
    const ledger = this.chain.ledger();
    let m = ledger.miners.get(address);
    if (!m) {
      if (!change.register) throw new Error(`unknown miner: ${address} (register it first)`);
      m = newMiner(address, ledger);
      ledger.miners.set(address, m);
    }
    if (change.checkins === false) m.stopped = true;
    if (change.checkins === true) {
      m.stopped = false;
      m.habit = 'always';
      // A rig that comes back checks in at once when this epoch's check-in time has passed.
      const epochStart = ledger.epoch * ledger.epochBlocks;
      if (!m.checkedIn && epochStart + m.checkinOffset <= ledger.height && checksIn(m, ledger.epoch))
        checkIn(m, ledger.epoch, ledger.height);
    }
    if (change.pendingRewards !== undefined) m.pending = change.pendingRewards;
    return m;
  }

  /** Sets an account's balance (base units): drain a hot wallet, or top it up. */
  balance(address: string, amount: bigint): bigint {
    if (amount < 0n) throw new Error('balance must not be negative');
    this.chain.ledger().balances.set(address, amount);
    return amount;
  }

  /**
   * Unbonds `amount` for `owner` from `validator` (default: the owner's own self-stake, which
   * shrinks at once); the entry matures after the unbonding period unless a height is given.
   */
  unbond(owner: string, amount: bigint, opts: { validator?: string; releaseHeight?: number } = {}): UnbondingEntry {
    const ledger = this.chain.ledger();
    if (amount <= 0n) throw new Error('amount must be positive');
    const from = opts.validator ?? owner;
    const v = ledger.validators.get(from);
    if (v && from === owner) {
      if (amount > v.selfStake) throw new Error(`amount exceeds the self-stake of ${owner}`);
      v.selfStake -= amount;
    }
    const entry = {
      address: from,
      amount,
      releaseHeight: opts.releaseHeight ?? ledger.height + ledger.unbondingBlocks,
    };
    ledger.unbonding.set(owner, [...(ledger.unbonding.get(owner) ?? []), entry]);
    return entry;
  }

  /** The owner claims every released entry: removed from the list, added to the balance. */
  claim(owner: string): bigint {
    const ledger = this.chain.ledger();
    const entries = ledger.unbonding.get(owner) ?? [];
    const released = entries.filter((u) => u.releaseHeight <= ledger.height);
    const total = released.reduce((sum, u) => sum + u.amount, 0n);
    ledger.unbonding.set(
      owner,
      entries.filter((u) => u.releaseHeight > ledger.height),
    );
    ledger.credit(owner, total);
    return total;
  }

  /** An empty reward pool pays nobody (an unpaid validator is then not offline). */
  rewardPool(funded: boolean): void {
    const ledger = this.chain.ledger();
    ledger.rewardPool = funded;
    ledger.refreshPayouts();
  }
}

function bounded(n: number, min: number, max: number, what: string): number {
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${what} must be an integer in ${min}..${max}`);
  return n;
}

function newMiner(address: string, ledger: Ledger): MinerState {
  const h = hash32(`${address}:rig`);
  return {
    address,
    name: `rig-${address.slice(0, 8)}`,
    registeredAt: ledger.height,
    ipPrefix: [10 + (h % 200), (h >>> 8) % 256, (h >>> 16) % 256],
    habit: 'always',
    stopped: false,
    active: false,
    reputationBps: 10_000,
    pending: 0n,
    pendingEpoch: ledger.epoch,
    attendance: 0,
    misses: 0,
    lastCheckinEpoch: 0,
    lastHeartbeat: ledger.height,
    checkedIn: false,
    checkinOffset: h % Math.max(1, Math.min(ledger.epochBlocks, 10)),
  };
}
