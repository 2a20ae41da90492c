// <ns>_getValidatorDetail [address] per watched validator: stake, commission, jailed, this
// epoch's production; null (no stake) is a value, not a failure; an answer about another address
// fails the read.
import type { FanOutProbe } from '../types.js';
import { watchedOf, watchInterval } from './entities.js';
import { parseValidatorDetail, type ValidatorDetail } from './parse.js';

export const watchValidatorDetailProbe: FanOutProbe<ValidatorDetail> = {
  target: 'entities',
  method: 'getValidatorDetail',
  entities: watchedOf('validator'),
  intervalMs: watchInterval,
  parse: (result, e) => parseValidatorDetail(result, e.id),
  metrics: [],
};
