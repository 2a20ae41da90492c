// Validators of a simulated chain as claw-node 0.5.8 runs them: the active set elected at epoch
// boundaries, slots by rotation, uptime counted for the proposer only, and the rewards of one
// block (every active validator not found offline in the previous epoch is paid).

export const UNIT = 10n ** 9n;
export const MIN_VALIDATOR_STAKE = 10_000n * UNIT;
export const MAX_ACTIVE = 21;

export interface ValidatorState {
  address: string;
  selfStake: bigint;
  delegated: bigint;
  agentScore: number;
  commissionBps: number;
  /** The owner whose stake the validator runs (rewards split commission / delegator). */
  delegatedBy: string | null;
  /** false: misses every slot it is given (the operator's node is down). */
  online: boolean;
  /** Jailed until the boundary that starts this epoch. */
  jailedUntilEpoch?: number;
  /** The current epoch: slots given, slots produced, a slot missed. */
  expected: number;
  produced: number;
  missed: boolean;
}

export interface Seat {
  address: string;
  stake: bigint;
  weight: number;
  agentScore: number;
}

export type RewardType = 'block_reward' | 'validator_commission' | 'delegator_reward' | 'mining_reward_confirmed';
export interface RewardEntry {
  recipient: string;
  amount: bigint;
  rewardType: RewardType;
}

export const stakeOf = (v: ValidatorState): bigint => v.selfStake + v.delegated;

export function isJailed(v: ValidatorState, epoch: number): boolean {
  return v.jailedUntilEpoch !== undefined && epoch < v.jailedUntilEpoch;
}

/** 70% stake (relative to the heaviest candidate), 30% reputation (agent score 0..10,000). */
export function weightOf(stake: bigint, maxStake: bigint, agentScore: number): number {
  const stakeBps = maxStake > 0n ? Number((stake * 10_000n) / maxStake) : 0;
  return Math.round(0.7 * stakeBps + 0.3 * agentScore);
}

const byWeight = (a: Seat, b: Seat): number =>
  b.weight - a.weight || (a.stake > b.stake ? -1 : a.stake < b.stake ? 1 : 0) || (a.address < b.address ? -1 : 1);

/** The active set of an epoch: stake >= 10,000 tokens, not jailed, top 21 by weight. */
export function electActiveSet(validators: Iterable<ValidatorState>, epoch: number): Seat[] {
  const candidates = [...validators].filter((v) => stakeOf(v) >= MIN_VALIDATOR_STAKE && !isJailed(v, epoch));
  const maxStake = candidates.reduce((m, v) => (stakeOf(v) > m ? stakeOf(v) : m), 0n);
  const seats = candidates.map((v) => ({
    address: v.address,
    stake: stakeOf(v),
    agentScore: v.agentScore,
    weight: weightOf(stakeOf(v), maxStake, v.agentScore),
  }));
  return seats.sort(byWeight).slice(0, MAX_ACTIVE);
}

/** How many heights in [from, to] have `h % n === slot` (the slots a seat gets in that span). */
export function slotsIn(from: number, to: number, n: number, slot: number): number {
  const upTo = (x: number): number => (x < slot ? 0 : Math.floor((x - slot) / n) + 1);
  return to < from ? 0 : upTo(to) - upTo(from - 1);
}

/** Counts the blocks [from, to] (one epoch) into each seat's uptime; an offline seat misses. */
export function countSlots(
  seats: readonly Seat[],
  validators: Map<string, ValidatorState>,
  from: number,
  to: number,
): void {
  seats.forEach((seat, i) => {
    const v = validators.get(seat.address);
    const n = slotsIn(from, to, seats.length, i);
    if (!v || n === 0) return;
    v.expected += n;
    if (v.online) v.produced += n;
    else v.missed = true;
  });
}

/** The validator rewards of one block: an equal share of the pool per paid validator. */
export function blockPayouts(paid: readonly ValidatorState[], pool: bigint): RewardEntry[] {
  if (paid.length === 0 || pool === 0n) return [];
  const share = pool / BigInt(paid.length);
  const out: RewardEntry[] = [];
  for (const v of paid) {
    if (v.delegatedBy === null) {
      out.push({ recipient: v.address, amount: share, rewardType: 'block_reward' });
      continue;
    }
    const commission = (share * BigInt(v.commissionBps)) / 10_000n;
    out.push({ recipient: v.address, amount: commission, rewardType: 'validator_commission' });
    out.push({ recipient: v.delegatedBy, amount: share - commission, rewardType: 'delegator_reward' });
  }
  return out;
}

/** uptime_pct as the node reports it: a share of production in 0.1 steps. */
export function uptimePct(v: ValidatorState): number {
  return v.expected === 0 ? 0 : Math.round((v.produced * 1000) / v.expected) / 10;
}
