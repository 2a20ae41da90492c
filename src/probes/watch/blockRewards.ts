// <ns>_getBlockRewards [newest height] once per network with watched validators: an active
// validator missing from the newest block's paid recipients is offline this epoch.
import { invalid } from '../parse.js';
import type { FanOutProbe } from '../types.js';
import { sharedNetworks, watchInterval } from './entities.js';
import { parseBlockRewards, type BlockRewards } from './parse.js';

export const watchBlockRewardsProbe: FanOutProbe<BlockRewards> = {
  target: 'entities',
  method: 'getBlockRewards',
  entities: sharedNetworks('watchBlockRewards', 'validator'),
  intervalMs: watchInterval,
  // The newest block of the node asked: a lagging node has its own newest block, never a later one.
  paramsFor: (_e, node) => (node.height === undefined ? [] : [node.height]),
  parse(result, _e, call) {
    const height = call.params[0];
    if (typeof height !== 'number') throw invalid('getBlockRewards: the node asked has no known height');
    return parseBlockRewards(result, height);
  },
  metrics: [],
};
