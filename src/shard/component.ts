// Joins the shard metrics to the daemon as a component (the daemon itself knows nothing of shards:
// it is handed configs already cut to this shard).
import type { DaemonComponent } from '../components.js';
import { shardCollectors, type ShardView } from './metrics.js';

export function shardComponent(view: ShardView): DaemonComponent {
  return { name: 'sharding', collectors: (registry) => shardCollectors(registry, view) };
}
