export { jumpConsistentHash, nameKey } from './jumpHash.js';
export { UNSHARDED, ownedBy, shardFromHostname, shardOfName, shardSpecProblems, type ShardSpec } from './assign.js';
