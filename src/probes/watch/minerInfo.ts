// <ns>_getMinerInfo [address] per watched miner, in the node's serde form: pending_rewards is a
// JSON number beyond 2^53, read exactly from the raw text; null (not registered) is a value.
import type { FanOutProbe } from '../types.js';
import { watchedOf, watchInterval } from './entities.js';
import { parseMinerInfo, type MinerInfo } from './parse.js';

export const watchMinerInfoProbe: FanOutProbe<MinerInfo> = {
  target: 'entities',
  method: 'getMinerInfo',
  entities: watchedOf('miner'),
  intervalMs: watchInterval,
  exactNumbers: ['pending_rewards'],
  parse: (result, e) => parseMinerInfo(result, e.id),
  metrics: [],
};
