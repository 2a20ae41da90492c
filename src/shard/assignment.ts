// Applies this replica's shard to every accepted config: the daemon only ever sees the nodes of
// its shard, so a reload that leaves a node in the same shard keeps that node's state (the
// daemon keeps unchanged nodes), and a node that moves to another shard is dropped here.
import type { NodeTarget } from '../domain.js';
import type { WatchSettings } from '../watch/types.js';
import { ownedBy, UNSHARDED, type ShardSpec } from './assign.js';
import type { ShardView } from './metrics.js';
import { resolveShardSpec, type ShardFlags } from './spec.js';

/** What sharding reads and narrows of a config (the whole config is one). */
export interface ShardableConfig {
  nodes: NodeTarget[];
  watch?: WatchSettings;
  sharding?: ShardSpec;
}

export class ShardAssignment implements ShardView {
  private current: ShardSpec = UNSHARDED;
  private assignedCount = 0;
  private configuredCount = 0;

  /** Flags are checked at the first apply(), together with the config's section. */
  constructor(
    private readonly flags: ShardFlags,
    private readonly hostname: string,
  ) {}

  /** The config with only this shard's nodes; throws ShardSpecError for an impossible spec. */
  apply<C extends ShardableConfig>(config: C): C {
    const spec = resolveShardSpec(this.flags, config.sharding, this.hostname);
    const nodes = ownedBy(config.nodes, spec);
    this.current = spec;
    this.assignedCount = nodes.length;
    this.configuredCount = config.nodes.length;
    // Each watched entry is read and exported by one shard, hashed by its name as nodes are.
    const watch = config.watch && { ...config.watch, entries: ownedBy(config.watch.entries, spec) };
    return { ...config, nodes, ...(watch && { watch }) };
  }

  spec(): ShardSpec {
    return this.current;
  }

  assigned(): number {
    return this.assignedCount;
  }

  sharded(): boolean {
    return this.current.totalShards > 1;
  }

  /** For the start-up and reload log lines. */
  summary(): { shard: number; totalShards: number; nodesAssigned: number; nodesConfigured: number } {
    return { ...this.current, nodesAssigned: this.assignedCount, nodesConfigured: this.configuredCount };
  }
}
