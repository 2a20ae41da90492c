// Which shard a replica runs as: flags over the config's `sharding:` section, with clear errors.
import { describe, expect, it } from 'vitest';
import { ConfigError, formatProblem, parseConfig } from '../../src/config/index.js';
import { resolveShardSpec, ShardAssignment, shardOfName } from '../../src/shard/index.js';

describe('resolveShardSpec', () => {
  it('is unsharded (shard 0 of 1) with no flag and no section', () => {
    expect(resolveShardSpec({}, undefined, 'host')).toEqual({ shard: 0, totalShards: 1 });
  });

  it('takes --shard and --total-shards', () => {
    expect(resolveShardSpec({ shard: '2', totalShards: '3' }, undefined, 'host')).toEqual({ shard: 2, totalShards: 3 });
  });

  it('takes the index from a StatefulSet pod name', () => {
    expect(resolveShardSpec({ fromHostname: true, totalShards: '3' }, undefined, 'ledger-fleet-exporter-1')).toEqual({
      shard: 1,
      totalShards: 3,
    });
  });

  it('uses the config section, and lets each flag override its part', () => {
    expect(resolveShardSpec({}, { shard: 1, totalShards: 4 }, 'host')).toEqual({ shard: 1, totalShards: 4 });
    expect(resolveShardSpec({ shard: '3' }, { shard: 1, totalShards: 4 }, 'host')).toEqual({
      shard: 3,
      totalShards: 4,
    });
    expect(resolveShardSpec({ fromHostname: true }, { shard: 0, totalShards: 2 }, 'exp-1')).toEqual({
      shard: 1,
      totalShards: 2,
    });
  });

  it.each([
    [{ shard: '3', totalShards: '3' }, 'host', 'shard 3 is out of range: shards are numbered 0..2 for total shards 3'],
    [{ shard: '0', totalShards: '0' }, 'host', 'total shards must be an integer >= 1, got 0'],
    [{ shard: 'one', totalShards: '2' }, 'host', '--shard must be a whole number, got "one"'],
    [{ shard: '-1', totalShards: '2' }, 'host', '--shard must be a whole number, got "-1"'],
    [{ shard: '1', totalShards: '2.5' }, 'host', '--total-shards must be a whole number, got "2.5"'],
    [
      { shard: '1' },
      'host',
      '--total-shards <n> is required with --shard or --shard-from-hostname (or sharding.totalShards in the config)',
    ],
    [
      { totalShards: '3' },
      'host',
      '--total-shards needs the shard index: --shard <i>, --shard-from-hostname, or sharding.shard in the config',
    ],
    [{ shard: '1', fromHostname: true, totalShards: '3' }, 'exp-1', '--shard and --shard-from-hostname are exclusive'],
    [
      { fromHostname: true, totalShards: '3' },
      'worker7',
      '--shard-from-hostname: the hostname "worker7" does not end in -<ordinal>',
    ],
    [{ fromHostname: true, totalShards: '3' }, 'ledger-fleet-exporter-3', 'shard 3 is out of range'],
  ])('rejects %j on host %s: %s', (flags, host, message) => {
    expect(() => resolveShardSpec(flags, undefined, host)).toThrow(message);
  });
});

describe('the sharding: config section', () => {
  const doc = (sharding: string) =>
    `listen: 127.0.0.1:9715\nnodes:\n  - {name: a, url: "http://10.0.0.1:9710"}\n  - {name: b, url: ` +
    `"http://10.0.0.2:9710"}\n${sharding}`;

  it('resolves to the shard spec, which the flags override key by key', () => {
    const config = parseConfig(doc('sharding: {shard: 1, totalShards: 2}\n'), { file: 'fleet.yaml' });
    expect(config.sharding).toEqual({ shard: 1, totalShards: 2 });
    const fromFile = new ShardAssignment({}, 'host');
    expect(fromFile.apply(config).nodes.map((n) => n.name)).toEqual(['a', 'b'].filter((n) => shardOfName(n, 2) === 1));
    expect(fromFile.spec()).toEqual({ shard: 1, totalShards: 2 });
    const overridden = new ShardAssignment({ shard: '0' }, 'host');
    overridden.apply(config);
    expect(overridden.spec()).toEqual({ shard: 0, totalShards: 2 });
  });

  it('is absent by default', () => {
    expect(parseConfig(doc(''), { file: 'fleet.yaml' }).sharding).toBeUndefined();
  });

  it.each([
    [
      'sharding: {shard: 2, totalShards: 2}\n',
      'fleet.yaml:5:19: sharding.shard: shard 2 is out of range: shards are numbered 0..1 for totalShards 2',
    ],
    [
      'sharding: {shard: 0, totalShards: 0}\n',
      'fleet.yaml:5:35: sharding.totalShards: Too small: expected number to be >=1',
    ],
    ['sharding: {shard: 0.5, totalShards: 2}\n', 'fleet.yaml:5:19: sharding.shard: expected int, received number'],
    ['sharding: {totalShards: 2}\n', 'sharding.shard: missing required key "shard"'],
  ])('reports %j with file:line:col and the key', (text, message) => {
    let problems: string[] = [];
    try {
      parseConfig(doc(text), { file: 'fleet.yaml' });
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems = err.problems.map(formatProblem);
    }
    expect(
      problems.some((p) => p.includes(message)),
      problems.join('\n'),
    ).toBe(true);
  });
});
