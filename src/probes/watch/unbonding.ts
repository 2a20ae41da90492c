// <ns>_getUnbonding [address] per watched account: the entries it unbonded, pending or past
// their release height and not yet claimed (nothing is paid out by itself).
import type { FanOutProbe } from '../types.js';
import { watchedOf, watchInterval } from './entities.js';
import { parseUnbonding, type UnbondingEntry } from './parse.js';

export const watchUnbondingProbe: FanOutProbe<UnbondingEntry[]> = {
  target: 'entities',
  method: 'getUnbonding',
  entities: watchedOf('account'),
  intervalMs: watchInterval,
  parse: (result) => parseUnbonding(result),
  metrics: [],
};
