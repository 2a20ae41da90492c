// With shards, each watched entry is read and exported by exactly one shard, picked by a jump
// hash of its name as nodes are; twins of one shard (HA pairs) keep the same entries.
import { describe, expect, it } from 'vitest';
import type { ExporterConfig } from '../../src/config/exporterConfig.js';
import { ShardAssignment, shardOfName } from '../../src/shard/index.js';
import type { WatchEntry } from '../../src/watch/types.js';
import { daemonConfig, target } from '../support/targets.js';

const entries: WatchEntry[] = Array.from({ length: 60 }, (_, i) => ({
  kind: (['validator', 'miner', 'account'] as const)[i % 3]!,
  name: `entry-${i}`,
  address: (i + 1).toString(16).padStart(64, '0'),
  network: 'mainnet',
}));
const config: ExporterConfig = {
  ...daemonConfig([target('n1'), target('n2')]),
  watch: { intervalMs: 30_000, entries },
};

const shardOf = (i: number, total: number, host = 'h') =>
  new ShardAssignment({ shard: String(i), totalShards: String(total) }, host).apply(config);

describe('watch entries over shards', () => {
  it('gives every entry to exactly one shard, the one its name hashes to', () => {
    const total = 3;
    const seen = new Map<string, number>();
    for (let i = 0; i < total; i++) {
      const owned = shardOf(i, total).watch!.entries;
      for (const e of owned) {
        expect(seen.has(e.name), e.name).toBe(false);
        seen.set(e.name, i);
        expect(shardOfName(e.name, total)).toBe(i);
      }
    }
    expect([...seen.keys()].sort()).toEqual(entries.map((e) => e.name).sort());
    // Spread: no shard is left without entries.
    expect(new Set(seen.values()).size).toBe(total);
  });

  it('keeps the same entries, settings and order in twins of one shard', () => {
    expect(shardOf(1, 3, 'twin-a').watch).toEqual(shardOf(1, 3, 'twin-b').watch);
    expect(shardOf(0, 1).watch).toEqual(config.watch);
  });
});
