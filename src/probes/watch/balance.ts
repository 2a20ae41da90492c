// <ns>_getBalance [address] per watched account: base units, exact.
import { parseAmount } from '../parse.js';
import type { FanOutProbe } from '../types.js';
import { watchedOf, watchInterval } from './entities.js';

export const watchBalanceProbe: FanOutProbe<bigint> = {
  target: 'entities',
  method: 'getBalance',
  entities: watchedOf('account'),
  intervalMs: watchInterval,
  parse: (result) => parseAmount(result, 'getBalance'),
  metrics: [],
};
