// The replica's own shard metrics: which shard it is (so Prometheus can see a missing or
// disagreeing replica) and how many nodes it polls.
import { Gauge, type Registry } from '../deps/promClient.js';
import type { ShardSpec } from './assign.js';

export interface ShardView {
  spec(): ShardSpec;
  /** Nodes this replica polls now. */
  assigned(): number;
}

export function shardCollectors(registry: Registry, view: ShardView): void {
  new Gauge({
    name: 'ledger_exporter_shard',
    help: 'The shard this exporter polls (shard, 0-based) out of total_shards. Always 1.',
    labelNames: ['shard', 'total_shards'],
    registers: [registry],
    collect() {
      const { shard, totalShards } = view.spec();
      this.reset();
      this.set({ shard: String(shard), total_shards: String(totalShards) }, 1);
    },
  });
  new Gauge({
    name: 'ledger_exporter_total_shards',
    help: 'Number of shards this exporter was told the fleet is split into (its --total-shards).',
    registers: [registry],
    collect() {
      this.set(view.spec().totalShards);
    },
  });
  new Gauge({
    name: 'ledger_exporter_nodes_assigned',
    help: 'Configured nodes that this exporter polls (the nodes of its shard).',
    registers: [registry],
    collect() {
      this.set(view.assigned());
    },
  });
}
