// <ns>_getUserDelegations [address] per watched delegator: one entry per validator it delegated
// to, the amount exact (u128 string), the validator's current commission (10000 when none is
// recorded). An answer that lists a validator twice or a commission over 10000 fails the read.
import { count, describe, invalid, isObject, parseAmount } from '../parse.js';
import type { FanOutProbe } from '../types.js';
import { watchedOf, watchInterval } from './entities.js';
import { parseAddress } from './parse.js';

export interface Delegation {
  validator: string;
  amount: bigint;
  commissionBps: number;
}

/** More than this many delegations in one answer is not a delegator's list: the read fails. */
export const MAX_DELEGATIONS = 1_000;

export function parseUserDelegations(result: unknown): Delegation[] {
  if (!Array.isArray(result)) throw invalid(`getUserDelegations: expected an array, got ${describe(result)}`);
  if (result.length > MAX_DELEGATIONS)
    throw invalid(`getUserDelegations: ${result.length} delegations, more than ${MAX_DELEGATIONS}`);
  const seen = new Set<string>();
  return result.map((r: unknown, i) => {
    const at = `getUserDelegations[${i}]`;
    if (!isObject(r)) throw invalid(`${at}: expected an object, got ${describe(r)}`);
    const validator = parseAddress(r.validator, `${at}.validator`);
    if (seen.has(validator)) throw invalid(`${at}.validator ${validator} is listed twice`);
    seen.add(validator);
    const commissionBps = count(r.commission_bps, `${at}.commission_bps`);
    if (commissionBps > 10_000) throw invalid(`${at}.commission_bps is over 10000: ${commissionBps}`);
    return { validator, amount: parseAmount(r.amount, `${at}.amount`), commissionBps };
  });
}

export const watchDelegationsProbe: FanOutProbe<Delegation[]> = {
  target: 'entities',
  method: 'getUserDelegations',
  entities: watchedOf('delegator'),
  intervalMs: watchInterval,
  parse: (result) => parseUserDelegations(result),
  metrics: [],
};
