// <ns>_getServices [] once per network with watched providers: the whole registry comes in one
// answer (no paging), so it is read once per network per interval and each provider's services are
// picked out of it; price_amount (a u128 JSON number) is read exactly from the raw text.
import type { FanOutProbe } from '../types.js';
import { networksOf, watchInterval } from './entities.js';
import { parseServices, type ServiceEntry } from './tokenParse.js';

export const watchServicesProbe: FanOutProbe<ServiceEntry[]> = {
  target: 'entities',
  method: 'getServices',
  entities: networksOf('provider'),
  intervalMs: watchInterval,
  exactNumbers: ['price_amount'],
  parse: (result) => parseServices(result),
  metrics: [],
};
