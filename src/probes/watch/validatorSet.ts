// <ns>_getValidators once per network with watched validators: the active set every watched
// validator's place, rank and seat margin come from.
import type { ValidatorInfo } from '../../domain.js';
import { maxValidatorsOf } from '../budget.js';
import { parseValidators } from '../parse.js';
import type { FanOutProbe } from '../types.js';
import { sharedNetworks, watchInterval } from './entities.js';

export const watchValidatorSetProbe: FanOutProbe<ValidatorInfo[]> = {
  target: 'entities',
  method: 'getValidators',
  entities: sharedNetworks('watchValidatorSet', 'validator'),
  intervalMs: watchInterval,
  // The node probe's cap (polling.maxValidators): a set one path accepts, the other must too.
  parse: (result, _e, call) => parseValidators(result, maxValidatorsOf(call.config.polling)),
  metrics: [],
};
