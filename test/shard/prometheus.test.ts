// The scale-out proof on loopback: three exporter processes (--shard 0..2 --total-shards 3) over
// one config of 60 simulated nodes, and a real Prometheus scraping all three with our recording
// rules. Every node is polled by exactly one shard, and the recorded fleet values equal the
// per-network gauges of one unsharded exporter polling the same fleet. Heights are held still
// (one block an hour) so both sides see the same chain. An HA twin of the shard that polls a down
// node is scraped too: it changes no recorded value and adds no alert.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { shardOfName } from '../../src/shard/index.js';
import { SimFleet } from '../../src/sim/index.js';
import type { SimNodeSpec } from '../../src/sim/types.js';
import { RECORDING_FILE, RULES_FILE } from '../support/alert-rules.js';
import { requireBuiltCli, startDaemonProcess, type DaemonProcess } from '../support/cliProcess.js';
import { waitFor, type ManagedProcess } from '../support/processes.js';
import { startPrometheus } from '../support/prometheus.js';
import { checkTools, requireTool } from '../support/prometheus-tools.js';

const tools = checkTools(['prometheus']);
const SHARDS = 3;
const WAIT_MS = 90_000;
/** Nodes 13 and 47 answer through a failing proxy: down. The twin polls the first one's shard. */
const DOWN = ['rpc-13', 'miner-47'];
const TWINNED = shardOfName(DOWN[0]!, SHARDS);

/** 60 nodes in two networks: some behind, some on another version, two down, one on a stale validator set. */
function fleetSpecs(): SimNodeSpec[] {
  return Array.from({ length: 60 }, (_, i) => ({
    name: `${i % 3 === 0 ? 'val' : i % 3 === 1 ? 'rpc' : 'miner'}-${String(i).padStart(2, '0')}`,
    network: i < 40 ? 'mainnet' : 'testnet',
    build: 'current' as const,
    heightOffset: i % 7 === 0 ? 30 + i : 0,
    ...(i % 11 === 0 ? { version: '1.4.0-rc1' } : {}),
    ...(i === 13 || i === 47 ? { fault: 'proxy_502' as const } : {}),
    ...(i === 22 ? { missingValidators: 2 } : {}),
  }));
}

interface Sample {
  labels: Record<string, string>;
  value: number;
}

/** `metric{labels} value` lines of one family from an exposition text. */
function samples(text: string, metric: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${metric}{`) && !line.startsWith(`${metric} `)) continue;
    const m = /^[^{ ]+(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels = Object.fromEntries(
      [...(m[1] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]),
    );
    out.push({ labels: labels as Record<string, string>, value: Number(m[2]) });
  }
  return out;
}

const byKey = (list: Sample[], key: (l: Record<string, string>) => string) =>
  Object.fromEntries(list.map((s) => [key(s.labels), s.value]));

describe.skipIf(tools.skip)(`three shards behind a real Prometheus equal one exporter${tools.skipNote}`, () => {
  let dir = '';
  let fleet: SimFleet | undefined;
  const exporters: DaemonProcess[] = [];
  let single: DaemonProcess | undefined;
  let twin: DaemonProcess | undefined;
  let twinInstance = '';
  let prometheus: ManagedProcess | undefined;
  let promUrl = '';
  const names = fleetSpecs().map((s) => s.name);
  const context = () => [prometheus?.output() ?? '', ...exporters.map((e) => e.stderr().slice(-2000))].join('\n');

  async function query(expr: string): Promise<Sample[]> {
    const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(expr)}`, {
      signal: AbortSignal.timeout(5_000),
    });
    const body = (await res.json()) as {
      status: string;
      data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
    };
    if (body.status !== 'success') throw new Error(`query ${expr}: ${JSON.stringify(body)}`);
    return body.data.result.map((r) => ({ labels: r.metric, value: Number(r.value[1]) }));
  }

  beforeAll(async () => {
    requireBuiltCli();
    const prom = requireTool(tools, 'prometheus');
    dir = mkdtempSync(path.join(tmpdir(), 'lfe-shards-'));
    fleet = await SimFleet.start(fleetSpecs(), { host: '127.0.0.1', layout: 'shared-port', blockTimeMs: 3_600_000 });
    const config = {
      listen: '127.0.0.1:0',
      defaults: { interval: '2s', timeout: '1500ms', probes: ['health', 'blockNumber', 'validators', 'miningStats'] },
      nodes: fleet.nodes.map((n) => ({ name: n.name, url: n.url, network: n.network })),
      evidence: { dir: path.join(dir, 'evidence') },
    };
    const file = path.join(dir, 'fleet.yaml');
    writeFileSync(file, stringify(config));
    const shard = (i: number) =>
      startDaemonProcess(
        ['--config', file, '--log-format', 'json', '--shard', String(i), '--total-shards', String(SHARDS)],
        { readyTimeoutMs: 30_000 },
      );
    const started = await Promise.all([
      ...Array.from({ length: SHARDS }, (_, i) => shard(i)),
      shard(TWINNED),
      startDaemonProcess(['--config', file, '--log-format', 'json'], { readyTimeoutMs: 30_000 }),
    ]);
    single = started.pop();
    twin = started.pop();
    exporters.push(...started);
    twinInstance = new URL(twin!.url).host;

    const running = await startPrometheus(prom, dir, {
      targets: [...exporters.map((e) => new URL(e.url).host), twinInstance],
      ruleFiles: [RECORDING_FILE, RULES_FILE],
    });
    prometheus = running.process;
    promUrl = running.url;
    // Every shard has finished a poll round and Prometheus recorded over all 60 nodes.
    await waitFor(
      'recorded node count of 60 over three scraped shards and a twin',
      async () => {
        const up = await query('up{job="ledger-fleet-exporter"} == 1');
        const nodes = await query('sum(network:ledger_fleet_nodes:count)');
        const ready = await query(`count(ledger_node_block_height{instance!="${twinInstance}"})`);
        return up.length === SHARDS + 1 && nodes[0]?.value === 60 && (ready[0]?.value ?? 0) >= 58 ? true : undefined;
      },
      { timeoutMs: WAIT_MS, intervalMs: 1_000, context },
    );
  }, WAIT_MS + 60_000);

  afterAll(async () => {
    await prometheus?.stop();
    await Promise.all([...exporters, ...(single ? [single] : []), ...(twin ? [twin] : [])].map((e) => e.stop()));
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('polls every node in exactly one shard, as the jump hash assigns it', async () => {
    const notTwin = `instance!="${twinInstance}"`;
    const perNode = await query(`count by (node) (ledger_node_up{${notTwin}})`);
    expect(perNode.length).toBe(60);
    expect(perNode.every((s) => s.value === 1)).toBe(true);
    const shards = await query(`ledger_exporter_shard{${notTwin}}`);
    expect(shards.map((s) => s.labels.shard).sort()).toEqual(['0', '1', '2']);
    expect(shards.every((s) => s.labels.total_shards === '3')).toBe(true);
    const assigned = await query(`sum(ledger_exporter_nodes_assigned{${notTwin}})`);
    expect(assigned[0]?.value).toBe(60);
    // The twin polls the same nodes as the shard it doubles.
    const twinNodes = (await query(`ledger_node_up{instance="${twinInstance}"}`)).map((s) => s.labels.node).sort();
    expect(twinNodes).toEqual(names.filter((n) => shardOfName(n, SHARDS) === TWINNED).sort());
    // Which exporter exposes each node is the shard shardOfName gives it.
    const byInstance = new Map(
      (await query('ledger_exporter_shard')).map((s) => [s.labels.instance, Number(s.labels.shard)]),
    );
    for (const s of await query('ledger_node_up'))
      expect(byInstance.get(s.labels.instance), s.labels.node).toBe(shardOfName(s.labels.node ?? '', 3));
  });

  it('records fleet values equal to the per-network gauges of one exporter over the same fleet', async () => {
    const net = (l: Record<string, string>) => l.network ?? '';
    const pairs: Array<[string, string]> = [
      ['network:ledger_fleet_nodes:count', 'ledger_fleet_nodes'],
      ['network:ledger_fleet_nodes_up:sum', 'ledger_fleet_nodes_up'],
      ['network:ledger_node_block_height:max', 'ledger_fleet_block_height_max'],
      ['network:ledger_node_block_height:min', 'ledger_fleet_block_height_min'],
      ['network:ledger_fleet_versions:count', 'ledger_fleet_versions'],
      ['network:ledger_validators_active:max', 'ledger_validators_active'],
      ['network:ledger_fleet_validator_set_mismatch:max', 'ledger_fleet_validator_set_mismatch'],
      ['network:ledger_mining_miners_active:max', 'ledger_mining_miners_active'],
      ['network:ledger_mining_blocks_until_upgrade:min', 'ledger_mining_blocks_until_upgrade'],
    ];
    // Both sides poll on their own clocks (a probe can time out on a loaded machine): compare
    // once the single exporter shows the scenario's settled up counts and the sides agree, within a bound.
    const compare = async (text: string) => {
      const diffs: string[] = [];
      for (const [recorded, gauge] of pairs) {
        const got = JSON.stringify(byKey(await query(recorded), net));
        if (got !== JSON.stringify(byKey(samples(text, gauge), net))) diffs.push(recorded);
      }
      const lagOf = (list: Sample[]) => JSON.stringify(Object.entries(byKey(list, (l) => l.node ?? '')).sort());
      if (
        lagOf(samples(text, 'ledger_node_height_lag_blocks')) !==
        lagOf(await query('node:ledger_node_height_lag_blocks:fleet'))
      )
        diffs.push('lag');
      return diffs;
    };
    const text = await waitFor(
      'single exporter settled and equal to the recorded fleet values',
      async () => {
        const t = await (await fetch(`${single?.url}/metrics`)).text();
        const up = byKey(samples(t, 'ledger_fleet_nodes_up'), net);
        return up.mainnet === 39 && up.testnet === 19 && (await compare(t)).length === 0 ? t : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 1_000 },
    ).catch(async () => (await fetch(`${single?.url}/metrics`)).text());
    for (const [recorded, gauge] of pairs) {
      const expected = byKey(samples(text, gauge), net);
      expect(Object.keys(expected).sort(), gauge).toEqual(['mainnet', 'testnet']);
      expect(byKey(await query(recorded), net), recorded).toEqual(expected);
    }
    // The scenario really has something to compare: nodes down, lag, two versions, a stale set.
    expect(byKey(samples(text, 'ledger_fleet_nodes_up'), net)).toEqual({ mainnet: 39, testnet: 19 });
    expect(byKey(samples(text, 'ledger_fleet_validator_set_mismatch'), net).mainnet).toBe(1);
    expect(byKey(samples(text, 'ledger_fleet_versions'), net).mainnet).toBe(2);
    // Per node: the lag behind the whole network, not behind the node's own shard.
    const lag = byKey(samples(text, 'ledger_node_height_lag_blocks'), (l) => l.node ?? '');
    expect(Object.values(lag).some((v) => v > 0)).toBe(true);
    expect(byKey(await query('node:ledger_node_height_lag_blocks:fleet'), (l) => l.node ?? '')).toEqual(lag);
  }, 90_000);

  it('raises LedgerNodeDown once per down node with its identity labels only, though a twin polls it', async () => {
    const twinSees = await query(`ledger_node_up{instance="${twinInstance}", node="${DOWN[0]}"}`);
    expect(twinSees.map((s) => s.value)).toEqual([0]);
    // Pending or firing (for: 1m), ALERTS has one series per alert identity.
    const alerts = await waitFor(
      'LedgerNodeDown for both down nodes',
      async () => {
        const found = await query('ALERTS{alertname="LedgerNodeDown"}');
        return found.length >= DOWN.length ? found : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 1_000, context },
    );
    expect(alerts.map((a) => a.labels.node).sort()).toEqual([...DOWN].sort());
    for (const a of alerts) {
      const { alertstate: _state, ...labels } = a.labels;
      expect(labels).toEqual({
        __name__: 'ALERTS',
        alertname: 'LedgerNodeDown',
        severity: 'critical',
        node: a.labels.node,
        network: a.labels.network,
      });
    }
  });

  it('moves at most ~35% of the nodes when a fourth shard is added', () => {
    const moved = names.filter((n) => shardOfName(n, 3) !== shardOfName(n, 4));
    expect(moved.every((n) => shardOfName(n, 4) === 3)).toBe(true);
    expect(moved.length / names.length).toBeLessThanOrEqual(0.35);
    expect(moved.length).toBeGreaterThan(0);
  });
});
