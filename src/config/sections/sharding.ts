// sharding: which part of `nodes` this replica polls (--shard/--total-shards override each key).
// Owns its schema, the range rule shard < totalShards (reported at sharding.shard) and its
// resolution; applying the shard to the nodes is src/shard's job.
import * as z from 'zod';
import { isObj } from './fields.js';
import { defineSection } from './section.js';

const schema = z
  .strictObject({
    shard: z.number().int().min(0).meta({ description: "This replica's shard, 0-based (--shard overrides it)." }),
    totalShards: z
      .number()
      .int()
      .min(1)
      .meta({ description: 'Number of replicas the nodes are split over (--total-shards overrides it).' }),
  })
  .optional()
  .meta({ description: 'Split the nodes over several exporter replicas by jump consistent hash of the node name.' });

export const shardingSection = defineSection({
  shape: { sharding: schema },

  check(doc) {
    const s = doc.sharding;
    if (!isObj(s) || !Number.isInteger(s.shard) || !Number.isInteger(s.totalShards)) return [];
    const shard = s.shard as number;
    const total = s.totalShards as number;
    if (total < 1 || shard < total) return [];
    return [
      {
        path: ['sharding', 'shard'],
        message: `shard ${shard} is out of range: shards are numbered 0..${total - 1} for totalShards ${total}`,
      },
    ];
  },

  resolve({ sharding }) {
    return sharding ? { sharding: { shard: sharding.shard, totalShards: sharding.totalShards } } : {};
  },
});
