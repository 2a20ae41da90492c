// The state of a watched validator, miner or account in words, as the status page and
// /api/v1/watch show it (each kind's module names its own): "in the active set, 3rd of 21, paid
// in block 81,234", "missed 2 check-ins, inactive after 6", "balance 10.0 below 25". Pure.
import type {
  WatchedAccountView,
  WatchedEntryView,
  WatchedMinerView,
  WatchedValidatorView,
  WatchState,
} from './types.js';

export type { WatchState };
type StatusKind = WatchState['status'];

const INACTIVE_AFTER = 6;

export function ordinal(n: number): string {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? 'th' : (({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th');
  return `${n}${suffix}`;
}

const int = (n: number): string => Math.round(n).toLocaleString('en-US');
/** Token amounts: at least one decimal ("10.0"), at most four. */
export const tokens = (n: number): string =>
  n.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 4 });
const pct = (ratio: number): string => `${Math.round(ratio * 1000) / 10}%`;

/** Not read yet, or the last read failed: the chain values are unknown. */
export function unread(v: WatchedEntryView): WatchState | undefined {
  if (v.consecutiveFailures > 0) {
    const reasons = Object.entries(v.failures)
      .filter(([, n]) => n > 0)
      .map(([r]) => r.replace(/_/g, ' '));
    const why = reasons.length ? ` (${reasons.join(', ')})` : '';
    return {
      status: v.consecutiveFailures >= 3 ? 'down' : 'degraded',
      text:
        `cannot be read: ${v.consecutiveFailures} read${v.consecutiveFailures === 1 ? '' : 's'} failed in a ` +
        `row${why}`,
    };
  }
  return v.lastSuccessSeconds === undefined ? { status: 'unknown', text: 'not read yet' } : undefined;
}

export function validatorState(v: WatchedValidatorView): WatchState {
  const pending = unread(v);
  if (pending && v.active === undefined) return pending;
  if (v.registered === false) return { status: 'down', text: 'no stake: not a validator on this network' };
  const notes: string[] = [];
  if (
    v.commissionBps !== undefined &&
    v.commissionRatio !== undefined &&
    Math.round(v.commissionRatio * 10_000) !== v.commissionBps
  ) {
    notes.push(`commission ${pct(v.commissionRatio)}, expected ${pct(v.commissionBps / 10_000)}`);
  }
  const atRisk =
    v.seatMarginBelow !== undefined && v.seatMarginRatio !== undefined && v.seatMarginRatio < v.seatMarginBelow;
  if (atRisk)
    notes.push(`only ${pct(v.seatMarginRatio!)} above the lowest seat (warns below ${pct(v.seatMarginBelow!)})`);
  const tail = notes.length ? `; ${notes.join('; ')}` : '';
  if (v.jailed) return { status: 'down', text: `JAILED: out of the active set from the next epoch${tail}` };
  if (!v.active) return { status: 'down', text: `NOT in the active set: produces no blocks, earns nothing${tail}` };
  const seat =
    v.rank !== undefined ? `${ordinal(v.rank)}${v.setSize !== undefined ? ` of ${v.setSize}` : ''}` : undefined;
  const where = seat ? `in the active set, ${seat}` : 'in the active set';
  const block = v.rewardsHeight !== undefined ? ` in block ${int(v.rewardsHeight)}` : '';
  if (v.rewarded === false)
    return { status: 'down', text: `OFFLINE: ${where}, but not paid${block}; unpaid until the next epoch${tail}` };
  const paid = v.rewarded ? `, paid${block}` : '';
  return {
    status: notes.length ? 'degraded' : pending ? 'degraded' : 'up',
    text: `${where}${paid}${tail}${pending ? ` (${pending.text})` : ''}`,
  };
}

export function minerState(m: WatchedMinerView): WatchState {
  const pending = unread(m);
  if (pending && m.active === undefined) return pending;
  if (m.registered === false) return { status: 'down', text: 'not registered on this network' };
  const misses = m.consecutiveMisses ?? 0;
  if (m.active === false) {
    const why = misses >= INACTIVE_AFTER ? `missed ${misses} check-ins in a row` : 'no check-in settled yet';
    return { status: 'down', text: `INACTIVE: ${why}; earns nothing until it checks in again` };
  }
  const attendance = m.attendanceEpochs !== undefined ? ` (${m.attendanceEpochs} of the last 12 epochs)` : '';
  const paid = m.rewardMultiplier !== undefined ? `paid x${m.rewardMultiplier}${attendance}` : undefined;
  if (misses > 0) {
    const left = INACTIVE_AFTER - misses;
    return {
      status: 'degraded',
      text:
        `missed ${misses} check-in${misses === 1 ? '' : 's'}, inactive after ${INACTIVE_AFTER} (${left} ` +
        `more)${paid ? `; ${paid}` : ''}`,
    };
  }
  if (m.rewardMultiplier !== undefined && m.rewardMultiplier < 1)
    return { status: 'degraded', text: `checking in again; ${paid}` };
  return {
    status: pending ? 'degraded' : 'up',
    text: `checking in every epoch${paid ? `, ${paid}` : ''}${pending ? ` (${pending.text})` : ''}`,
  };
}

export function accountState(a: WatchedAccountView): WatchState {
  const pending = unread(a);
  if (pending && a.balanceTokens === undefined) return pending;
  const parts: string[] = [];
  let status: StatusKind = pending ? 'degraded' : 'up';
  if (a.balanceTokens !== undefined) {
    const low = a.minBalance !== undefined && a.balanceTokens < a.minBalance;
    if (low) status = 'degraded';
    const minimum =
      a.minBalance === undefined ? '' : `${low ? ' below' : ', minimum'} ${a.minBalance.toLocaleString('en-US')}`;
    parts.push(`balance ${tokens(a.balanceTokens)}${minimum}`);
  }
  if (a.unbondingClaimableTokens) parts.push(`${tokens(a.unbondingClaimableTokens)} unbonded, waiting to be claimed`);
  if (a.unbondingPendingTokens) {
    const next = a.nextReleaseBlocks !== undefined ? `, next release in ${int(a.nextReleaseBlocks)} blocks` : '';
    parts.push(`${tokens(a.unbondingPendingTokens)} unbonding${next}`);
  }
  if (pending) parts.push(pending.text);
  return { status, text: parts.join('; ') };
}
