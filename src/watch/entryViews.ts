// One watched validator, miner or account as the pipeline sees it, from its inputs (views.ts).
// The node's own rules (reference-node-facts.md): the active set is the top 21 by weight; a
// miner's reward needs `active` and 6 of the last 12 epochs (12: x1, 9-11: x0.8, 6-8: x0.5).
import type { ValidatorInfo } from '../domain.js';
import type { BlockRewards, MinerInfo, UnbondingEntry, ValidatorDetail } from '../probes/watch/parse.js';
import type { WatchedAccountView, WatchedMinerView, WatchedValidatorView } from './types.js';
import { readView, tokens, type EntryInputs } from './inputs.js';

/** Seats of the active set on real nodes. */
export const ACTIVE_SEATS = 21;
/** Epochs of attendance a miner's reward looks at. */
const ATTENDANCE_EPOCHS = 12;

const dataOf = <T>(i: EntryInputs, probe: string, from: 'own' | 'networkReads' = 'own'): T | undefined =>
  i[from][probe]?.data as T | undefined;

export function validatorView(i: EntryInputs): WatchedValidatorView {
  const e = i.entry;
  const detail = dataOf<ValidatorDetail>(i, 'watchValidatorDetail');
  const set = dataOf<ValidatorInfo[]>(i, 'watchValidatorSet', 'networkReads');
  const rewards = dataOf<BlockRewards>(i, 'watchBlockRewards', 'networkReads');
  const v: WatchedValidatorView = { ...e, kind: 'validator', ...readView(i) };
  if (detail) v.registered = detail.registered;
  if (detail?.registered) {
    v.stakeTokens = tokens(detail.stake, i.decimals);
    v.weight = detail.weight;
    v.agentScore = detail.agentScore;
    if (detail.commissionBps !== undefined) v.commissionRatio = detail.commissionBps / 10_000;
    v.jailed = detail.jailed;
    v.epochBlocks = detail.uptime;
  }
  if (set) placeInSet(v, set, e.address);
  if (rewards?.paid && rewards.entries! > 0) {
    const paid = rewards.paid.includes(e.address);
    // Unpaid matters only while active: outside the set nobody is paid.
    if (paid || v.active) v.rewarded = paid;
    v.rewardsHeight = rewards.height;
  }
  return v;
}

/** A validator set by weight (heaviest first): each address's place and the lowest weight. */
interface Ranking {
  places: Map<string, number>;
  weights: number[];
  lowest: number;
}

// By network: the set's data is the same object while a re-read says the same (EntityReads keeps
// it), so the sort runs once per network per set change, not once per watched validator per snapshot.
const rankings = new Map<string, { set: readonly ValidatorInfo[]; ranking: Ranking }>();

function rankingOf(set: readonly ValidatorInfo[], network: string): Ranking {
  let r = rankings.get(network)?.set === set ? rankings.get(network)!.ranking : undefined;
  if (!r) {
    const ranked = [...set].sort((a, b) => (b.weight ?? 0) - (a.weight ?? 0) || (a.address < b.address ? -1 : 1));
    const places = new Map<string, number>();
    // The first of an address listed twice, as a search from the top would find.
    ranked.forEach((x, i) => places.has(x.address) || places.set(x.address, i));
    r = { places, weights: ranked.map((x) => x.weight ?? 0), lowest: ranked[ranked.length - 1]?.weight ?? 0 };
    rankings.set(network, { set, ranking: r });
  }
  return r;
}

function placeInSet(v: WatchedValidatorView, set: readonly ValidatorInfo[], address: string): void {
  const ranking = rankingOf(set, v.network);
  const at = ranking.places.get(address) ?? -1;
  v.active = at >= 0;
  v.setSize = set.length;
  if (at >= 0) v.rank = at + 1;
  // No seat to keep for an address without stake.
  if (at < 0 && v.registered !== true) return;
  const own = at >= 0 ? ranking.weights[at]! : (v.weight ?? 0);
  if (set.length < ACTIVE_SEATS) v.seatMarginRatio = 1;
  else if (own > 0) v.seatMarginRatio = (own - ranking.lowest) / own;
}

export function minerView(i: EntryInputs): WatchedMinerView {
  const m = dataOf<MinerInfo>(i, 'watchMinerInfo');
  const v: WatchedMinerView = { ...i.entry, kind: 'miner', ...readView(i) };
  if (i.epoch !== undefined) v.epoch = i.epoch;
  if (!m) return v;
  v.registered = m.registered;
  if (!m.registered) return v;
  v.active = m.active;
  v.consecutiveMisses = m.consecutiveMisses;
  if (i.epoch !== undefined && m.lastCheckinEpoch > 0) v.epochsSinceCheckin = Math.max(0, i.epoch - m.lastCheckinEpoch);
  v.attendanceEpochs = popcount(m.attendance & ((1 << ATTENDANCE_EPOCHS) - 1));
  v.rewardMultiplier = !m.active
    ? 0
    : v.attendanceEpochs >= 12
      ? 1
      : v.attendanceEpochs >= 9
        ? 0.8
        : v.attendanceEpochs >= 6
          ? 0.5
          : 0;
  v.reputationRatio = m.reputationBps / 10_000;
  v.pendingRewardsTokens = tokens(m.pendingRewards, i.decimals);
  return v;
}

function popcount(x: number): number {
  let n = 0;
  for (let b = x; b; b &= b - 1) n++;
  return n;
}

export function accountView(i: EntryInputs): WatchedAccountView {
  const balance = dataOf<bigint>(i, 'watchBalance');
  const unbonding = dataOf<UnbondingEntry[]>(i, 'watchUnbonding');
  const v: WatchedAccountView = { ...i.entry, kind: 'account', ...readView(i) };
  if (balance !== undefined) v.balanceTokens = tokens(balance, i.decimals);
  const height = i.network?.heightMax;
  if (unbonding && height !== undefined) {
    let pending = 0n;
    let claimable = 0n;
    let next: number | undefined;
    for (const u of unbonding) {
      if (u.releaseHeight > height) {
        pending += u.amount;
        next = Math.min(next ?? Infinity, u.releaseHeight - height);
      } else claimable += u.amount;
    }
    v.unbondingPendingTokens = tokens(pending, i.decimals);
    v.unbondingClaimableTokens = tokens(claimable, i.decimals);
    if (next !== undefined) v.nextReleaseBlocks = next;
  }
  return v;
}
