// Joins the shard metrics to the daemon as a component (the daemon itself knows nothing of shards:
// it is handed configs already cut to this shard), and says at start what a shard leaves to others.
import type { DaemonComponent } from '../daemon/component.js';
import { shardCollectors, type ShardView } from './metrics.js';

export interface ShardComponentOptions {
  /** The alerts this shard's engine leaves to the Prometheus rules (network-wide ones). */
  leftToPrometheus?: () => string[] | Promise<string[]>;
}

/** The shard's view; an assignment that knows whether it is sharded also logs what that means at start. */
type Shard = ShardView & { sharded?(): boolean; summary?(): object };

export function shardComponent(sharding: Shard, opts: ShardComponentOptions = {}): DaemonComponent {
  return {
    name: 'sharding',
    collectors: (registry) => shardCollectors(registry, sharding),
    async start(ctx) {
      if (!sharding.sharded?.()) return;
      ctx.logger.info(sharding.summary?.() ?? {}, 'sharded: polling only the nodes of this shard');
      if (ctx.config().alerting && opts.leftToPrometheus) {
        const note =
          'sharded: the built-in engine evaluates node and exporter alerts for this shard; these network-wide ' +
          'alerts are left to the Prometheus rules (alerts/*.yml)';
        ctx.logger.info({ alerts: await opts.leftToPrometheus() }, note);
      }
    },
  };
}
