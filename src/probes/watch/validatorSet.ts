// <ns>_getValidators once per network with watched validators: the active set every watched
// validator's place, rank and seat margin come from.
import type { ValidatorInfo } from '../../domain.js';
import { parseValidators } from '../parse.js';
import type { FanOutProbe } from '../types.js';
import { validatorNetworks, watchInterval } from './entities.js';

export const watchValidatorSetProbe: FanOutProbe<ValidatorInfo[]> = {
  target: 'entities',
  method: 'getValidators',
  entities: validatorNetworks,
  intervalMs: watchInterval,
  parse: (result) => parseValidators(result),
  metrics: [],
};
