// Which shard a replica runs as: flags over the config's `sharding:` section, with clear errors.
import { describe, expect, it } from 'vitest';
import { resolveShardSpec } from '../src/shard/index.js';

describe('resolveShardSpec', () => {
  it('is unsharded (shard 0 of 1) with no flag and no section', () => {
    expect(resolveShardSpec({}, undefined, 'host')).toEqual({ shard: 0, totalShards: 1 });
  });

  it('takes --shard and --total-shards', () => {
    expect(resolveShardSpec({ shard: '2', totalShards: '3' }, undefined, 'host')).toEqual({ shard: 2, totalShards: 3 });
  });

  it('takes the index from a StatefulSet pod name', () => {
    expect(resolveShardSpec({ fromHostname: true, totalShards: '3' }, undefined, 'ledger-fleet-exporter-1')).toEqual({ shard: 1, totalShards: 3 });
  });

  it('uses the config section, and lets each flag override its part', () => {
    expect(resolveShardSpec({}, { shard: 1, totalShards: 4 }, 'host')).toEqual({ shard: 1, totalShards: 4 });
    expect(resolveShardSpec({ shard: '3' }, { shard: 1, totalShards: 4 }, 'host')).toEqual({ shard: 3, totalShards: 4 });
    expect(resolveShardSpec({ fromHostname: true }, { shard: 0, totalShards: 2 }, 'exp-1')).toEqual({ shard: 1, totalShards: 2 });
  });

  it.each([
    [{ shard: '3', totalShards: '3' }, 'host', 'shard 3 is out of range: shards are numbered 0..2 for total shards 3'],
    [{ shard: '0', totalShards: '0' }, 'host', 'total shards must be an integer >= 1, got 0'],
    [{ shard: 'one', totalShards: '2' }, 'host', '--shard must be a whole number, got "one"'],
    [{ shard: '-1', totalShards: '2' }, 'host', '--shard must be a whole number, got "-1"'],
    [{ shard: '1', totalShards: '2.5' }, 'host', '--total-shards must be a whole number, got "2.5"'],
    [{ shard: '1' }, 'host', '--total-shards <n> is required with --shard or --shard-from-hostname (or sharding.totalShards in the config)'],
    [{ totalShards: '3' }, 'host', '--total-shards needs the shard index: --shard <i>, --shard-from-hostname, or sharding.shard in the config'],
    [{ shard: '1', fromHostname: true, totalShards: '3' }, 'exp-1', '--shard and --shard-from-hostname are exclusive'],
    [{ fromHostname: true, totalShards: '3' }, 'worker7', '--shard-from-hostname: the hostname "worker7" does not end in -<ordinal>'],
    [{ fromHostname: true, totalShards: '3' }, 'ledger-fleet-exporter-3', 'shard 3 is out of range'],
  ])('rejects %j on host %s: %s', (flags, host, message) => {
    expect(() => resolveShardSpec(flags, undefined, host)).toThrow(message);
  });
});
