// A sharded exporter: only its shard's nodes are polled and exposed, its shard metrics, the
// command line's errors, and reloads that keep each node's state while its shard stays the same.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import { createLogger } from '../../src/logger.js';
import { ShardAssignment, shardOfName } from '../../src/shard/index.js';
import { shardComponent } from '../../src/shard/component.js';
import { SimFleet } from '../../src/sim/index.js';
import { requireBuiltCli, runCli } from '../support/cliProcess.js';
import { waitFor } from '../support/processes.js';

let fleet: SimFleet;
const names = Array.from({ length: 18 }, (_, i) => `node-${String(i).padStart(2, '0')}`);

function yaml(count: number): string {
  const nodes = fleet.nodes.slice(0, count).map((n) => `  - {name: ${n.name}, url: "${n.url}", network: ${n.network}}`);
  return (
    `listen: 127.0.0.1:0\ndefaults: {interval: 1s, timeout: 900ms, probes: [health, blockNumber]}\nnodes:\n` +
    `${nodes.join('\n')}\n`
  );
}
const config = (count: number) => parseConfig(yaml(count), { file: 'fleet.yaml' });

beforeAll(async () => {
  fleet = await SimFleet.start(
    names.map((name) => ({ name, network: 'main', build: 'current' as const })),
    { layout: 'shared-port', blockTimeMs: 1000 },
  );
});
afterAll(async () => {
  await fleet?.close();
});

describe('a sharded daemon', () => {
  let daemon: Daemon | undefined;
  const logs: string[] = [];
  afterAll(async () => {
    await daemon?.close();
  });

  it('polls only its shard, says so in metrics, and keeps node state across reloads', async () => {
    const sharding = new ShardAssignment({ shard: '0', totalShards: '2' }, 'host');
    const first = sharding.apply(config(12));
    const mine = names.slice(0, 12).filter((n) => shardOfName(n, 2) === 0);
    expect(first.nodes.map((n) => n.name)).toEqual(mine);
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.length).toBeLessThan(12);
    const sink = new Writable({ write: (chunk, _enc, cb) => (logs.push(String(chunk)), cb()) });
    daemon = await startDaemon(first, {
      logger: createLogger({ level: 'info', destination: sink }),
      evidence: false,
      defaultMetrics: false,
      components: [shardComponent(sharding)],
    });
    const d = daemon;
    await waitFor('first poll round', () => (d.ready() ? true : undefined), { timeoutMs: 15_000 });

    const text = await (await fetch(`${d.url}/metrics`)).text();
    expect(text).toContain('ledger_exporter_shard{shard="0",total_shards="2"} 1');
    expect(text).toContain(`ledger_exporter_nodes_assigned ${mine.length}`);
    const exposed = [...text.matchAll(/^ledger_node_up\{node="([^"]+)"/gm)].map((m) => m[1]).sort();
    expect(exposed).toEqual([...mine].sort());

    // More nodes in the file, same number of shards: the nodes already here keep their state.
    const before = new Map(mine.map((n) => [n, d.state.get(n)]));
    d.applyConfig(sharding.apply(config(18)));
    const mineNow = names.filter((n) => shardOfName(n, 2) === 0);
    expect(d.config().nodes.map((n) => n.name)).toEqual(mineNow);
    for (const [name, state] of before) expect(d.state.get(name), name).toBe(state);
    expect(sharding.assigned()).toBe(mineNow.length);

    // Three shards instead of two: jump hash moves nodes only into the new shard, so shard 0
    // keeps part of its nodes with their state and drops the rest.
    const wider = new ShardAssignment({ shard: '0', totalShards: '3' }, 'host');
    const kept = mineNow.filter((n) => shardOfName(n, 3) === 0);
    const moved = mineNow.filter((n) => shardOfName(n, 3) !== 0);
    expect(moved.every((n) => shardOfName(n, 3) === 2)).toBe(true);
    const states = new Map(mineNow.map((n) => [n, d.state.get(n)]));
    d.applyConfig(wider.apply(config(18)));
    expect(d.config().nodes.map((n) => n.name)).toEqual(kept);
    for (const n of kept) expect(d.state.get(n), n).toBe(states.get(n));
    for (const n of moved) expect(d.state.get(n), n).toBeUndefined();
  });
});

describe('the command line', () => {
  it.each([
    [['--shard', '3', '--total-shards', '3'], 'shard 3 is out of range: shards are numbered 0..2 for total shards 3'],
    [['--shard', '0', '--total-shards', '0'], 'total shards must be an integer >= 1, got 0'],
    [['--shard', 'x', '--total-shards', '2'], '--shard must be a whole number, got "x"'],
    [['--shard', '1'], '--total-shards <n> is required'],
    [
      ['--shard', '1', '--shard-from-hostname', '--total-shards', '2'],
      '--shard and --shard-from-hostname are exclusive',
    ],
  ])('refuses %j with exit code 2 and says why', async (flags, message) => {
    requireBuiltCli();
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const dir = mkdtempSync(path.join(tmpdir(), 'lfe-shard-cli-'));
    try {
      const file = path.join(dir, 'fleet.yaml');
      writeFileSync(file, yaml(3));
      const result = await runCli(['--config', file, ...flags]);
      expect(result.code, result.stdout + result.stderr).toBe(2);
      expect(result.stderr).toContain(`error: ${message}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
