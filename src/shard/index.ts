export { jumpConsistentHash, nameKey } from './jumpHash.js';
export { UNSHARDED, ownedBy, shardFromHostname, shardOfName, shardSpecProblems, type ShardSpec } from './assign.js';
export { resolveShardSpec, ShardSpecError, type ShardFlags } from './spec.js';
export { shardCollectors, type ShardView } from './metrics.js';
export { ShardAssignment } from './assignment.js';
export { alertsForShard, type ShardAlerts } from './alerts.js';
