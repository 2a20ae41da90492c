// The whole pipeline over real loopback HTTP: simulator -> probes -> state -> /metrics, evidence.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import { PROBE_NAMES, type NodeTarget } from '../../src/domain.js';
import type { ExporterConfig } from '../../src/config/exporterConfig.js';
import { createLogger } from '../../src/logger.js';
import { SimFleet } from '../../src/sim/index.js';
import { checkTools, requireTool } from '../support/prometheus-tools.js';
import { sample } from '../support/exporterChild.js';
import { waitFor } from '../support/processes.js';

const SECRET = 'hunter2-node-password';
let fleet: SimFleet;
let daemon: Daemon;
let dir: string;
const logLines: string[] = [];

function withCredentials(url: string): string {
  const u = new URL(url);
  u.username = 'monitor';
  u.password = SECRET;
  return u.toString();
}

function nodeTarget(name: string, url: string, network: string, over: Partial<NodeTarget> = {}): NodeTarget {
  return {
    name,
    url,
    network,
    labels: { role: 'test' },
    intervalMs: 300,
    timeoutMs: 250,
    rpcNamespace: 'auto',
    probes: [...PROBE_NAMES],
    headers: {},
    ...over,
  };
}

function config(nodes: NodeTarget[]): ExporterConfig {
  return {
    listen: { host: '127.0.0.1', port: 0 },
    polling: { concurrency: 16, maxResponseBytes: 1 << 20, maxUpstreamSeries: 500 },
    nodes,
    networks: {},
    evidence: { dir: join(dir, 'evidence'), maxBytes: 8 << 20, maxAgeDays: 1 },
  };
}

async function get(path: string, headers: Record<string, string> = {}) {
  const res = await request(daemon.url + path, { headers });
  const body = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, headers: res.headers, body };
}

async function metrics(): Promise<string> {
  return (await get('/metrics')).body.toString('utf8');
}

// Each test gets its own fleet and daemon: no test depends on what an earlier one did.
beforeEach(async () => {
  logLines.length = 0;
  dir = mkdtempSync(join(tmpdir(), 'lfe-daemon-'));
  fleet = await SimFleet.start(
    [
      { name: 'cur', network: 'main', build: 'current' },
      { name: 'stk', network: 'main', build: 'staking', namespace: 'chain' },
      { name: 'old', network: 'main', build: 'earliest' },
      { name: 'lag', network: 'main', build: 'current', heightOffset: 7 },
      { name: 'proxy', network: 'main', build: 'current', fault: 'proxy_502' },
      { name: 'hang', network: 'test', build: 'current', fault: 'hang' },
      { name: 'junk', network: 'test', build: 'current', fault: 'garbage_json' },
      { name: 'flap', network: 'test', build: 'current' },
      { name: 'fork', network: 'test', build: 'current', missingValidators: 2 },
    ],
    { layout: 'port-per-node', blockTimeMs: 1000 },
  );
  const targets = fleet.nodes.map((n) =>
    nodeTarget(n.name, n.name === 'proxy' ? withCredentials(n.url) : n.url, n.network),
  );
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logLines.push(String(chunk));
      cb();
    },
  });
  daemon = await startDaemon(config(targets), {
    logger: createLogger({ level: 'debug', destination: sink }),
    defaultMetrics: true,
    backoff: { after: 1000, maxFactor: 1, jitter: 0, random: () => 0 },
  });
  await waitFor('first poll round', () => daemon.ready(), { timeoutMs: 10_000, intervalMs: 50 });
  // Synced, not only written: a record can be read from its file before its sync is done and counted.
  await waitFor(
    'evidence for proxy, synced',
    async () =>
      (await daemon.evidence!.query({ node: 'proxy', limit: 1 })).length > 0 &&
      (sample(await metrics(), 'ledger_evidence_records_total{node="proxy"}') ?? 0) > 0,
    { timeoutMs: 10_000, intervalMs: 50 },
  );
});

afterEach(async () => {
  await daemon?.close();
  await fleet?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('exporter over a simulated fleet', () => {
  it('finds each node namespace and marks methods earlier builds lack as unsupported, not failing', async () => {
    const m = await metrics();
    expect(m).toMatch(
      /ledger_node_info\{node="cur",network="main",version="[^"]+",chain_id="[^"]+",rpc_namespace="claw",role="test"\} 1/,
    );
    expect(m).toMatch(/ledger_node_info\{node="stk",[^}]*rpc_namespace="chain"/);
    expect(m).toMatch(/ledger_node_info\{node="old",network="main",version="[^"]+",chain_id="",rpc_namespace="clw"/);
    expect(sample(m, 'ledger_probe_supported{node="old",network="main",probe="validators"}')).toBe(0);
    expect(sample(m, 'ledger_probe_supported{node="old",network="main",probe="miningStats"}')).toBe(0);
    expect(sample(m, 'ledger_probe_supported{node="stk",network="main",probe="miningStats"}')).toBe(0);
    expect(sample(m, 'ledger_probe_supported{node="stk",network="main",probe="validators"}')).toBe(1);
    // unsupported is not failing: 5xx count stays 0 and no other reason appears
    expect(
      sample(m, 'ledger_probe_failures_total{node="old",network="main",probe="validators",reason="http_5xx"}'),
    ).toBe(0);
    expect(m).not.toMatch(
      /ledger_probe_failures_total\{node="old",network="main",probe="validators",reason="(?!http_5xx)/,
    );
    expect(sample(m, 'ledger_node_up{node="old",network="main"}')).toBe(1);
  });

  it('exports heights, lag and fleet aggregates from live nodes', async () => {
    const m = await metrics();
    const max = sample(m, 'ledger_fleet_block_height_max{network="main"}')!;
    expect(max).toBeGreaterThan(0);
    expect(sample(m, 'ledger_fleet_nodes{network="main"}')).toBe(5);
    expect(sample(m, 'ledger_fleet_nodes_up{network="main"}')).toBe(4);
    const lag = sample(m, 'ledger_node_height_lag_blocks{node="lag",network="main"}')!;
    expect(lag).toBeGreaterThanOrEqual(6); // 7 blocks behind; polls of different nodes may straddle a block
    expect(lag).toBeLessThanOrEqual(9);
    expect(sample(m, 'ledger_validators_active{network="main"}')).toBeGreaterThan(0);
    expect(sample(m, 'ledger_mining_miners_active{network="main"}')).toBeGreaterThan(0);
    expect(sample(m, 'ledger_fleet_validator_set_mismatch{network="main"}')).toBe(0);
    // 'fork' knows two validators fewer than 'flap' in the same network
    expect(sample(m, 'ledger_fleet_validator_set_mismatch{network="test"}')).toBe(1);
    expect(sample(m, 'ledger_node_validators{node="fork",network="test"}')).toBe(
      sample(m, 'ledger_node_validators{node="flap",network="test"}')! - 2,
    );
    expect(m).toMatch(/^ledger_validator_stake_tokens\{network="main",validator="[0-9a-f]{64}"\} \d/m);
    expect(m).toMatch(/^ledger_upstream_block_height\{node="cur",network="main"\} \d+$/m);
    expect(m).toMatch(/^ledger_upstream_block_time_seconds_bucket\{node="cur",network="main",le="\+Inf"\} \d+$/m);
    expect(m.match(/^# TYPE ledger_upstream_blocks_total counter$/gm)).toHaveLength(1);
  });

  it('classifies failures and keeps no stale values for failing nodes', async () => {
    const m = await metrics();
    expect(sample(m, 'ledger_node_up{node="proxy",network="main"}')).toBe(0);
    expect(
      sample(m, 'ledger_probe_failures_total{node="proxy",network="main",probe="health",reason="http_5xx"}'),
    ).toBeGreaterThan(0);
    expect(
      sample(m, 'ledger_probe_failures_total{node="hang",network="test",probe="health",reason="timeout"}'),
    ).toBeGreaterThan(0);
    expect(
      sample(m, 'ledger_probe_failures_total{node="junk",network="test",probe="health",reason="invalid_response"}'),
    ).toBeGreaterThan(0);
    for (const n of ['proxy', 'hang', 'junk']) {
      expect(m).not.toMatch(new RegExp(`^ledger_node_block_height\\{node="${n}"`, 'm'));
      expect(m).not.toMatch(new RegExp(`^ledger_node_peers\\{node="${n}"`, 'm'));
    }
    // garbage_json breaks JSON answers only: /metrics of that node still parses and is re-exposed.
    for (const n of ['proxy', 'hang']) expect(m).not.toMatch(new RegExp(`^ledger_upstream_[a-z_]+\\{node="${n}"`, 'm'));
    expect(m).toMatch(/^ledger_upstream_block_height\{node="junk"/m);
  });

  it('keeps evidence of 5xx answers without the node password', async () => {
    const res = await get('/api/evidence?node=proxy&limit=5');
    expect(res.status).toBe(200);
    const body = JSON.parse(res.body.toString()) as { records: Array<Record<string, unknown>> };
    expect(body.records.length).toBeGreaterThan(0);
    const rec = body.records[0]!;
    expect(rec).toMatchObject({ node: 'proxy', network: 'main', status: 502 });
    expect(String(rec.body)).toMatch(/<html>|nginx/i);
    expect(String(rec.url)).not.toContain(SECRET);
    expect(res.body.toString()).not.toContain(SECRET);
    expect((await get('/api/evidence?limit=0')).status).toBe(400);
    expect((await get('/api/evidence?node=proxy&bogus=1')).status).toBe(400);
    const m = await metrics();
    expect(sample(m, 'ledger_evidence_records_total{node="proxy"}')).toBeGreaterThan(0);
    expect(sample(m, 'ledger_evidence_bytes')).toBeGreaterThan(0);
    expect(m).not.toContain(SECRET);
    expect(logLines.join('')).not.toContain(SECRET);
  });

  it('negotiates gzip and OpenMetrics', async () => {
    const gz = await get('/metrics', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toContain('ledger_node_up{node="cur",network="main"}');
    const om = await get('/metrics', { accept: 'application/openmetrics-text; version=1.0.0,text/plain;q=0.5' });
    expect(om.headers['content-type']).toMatch(/^application\/openmetrics-text/);
    expect(om.body.toString().endsWith('# EOF\n')).toBe(true);
    const text = await get('/metrics', { accept: 'text/plain' });
    expect(text.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it('serves health, readiness, a landing page, and refuses other methods and paths', async () => {
    expect((await get('/healthz')).status).toBe(200);
    expect((await get('/readyz')).status).toBe(200);
    const landing = await get('/');
    expect(landing.status).toBe(200);
    expect(landing.body.toString()).toContain('<td>proxy</td>');
    expect(landing.body.toString()).not.toContain(SECRET);
    expect((await get('/nope')).status).toBe(404);
    expect((await get('/' + 'a'.repeat(5000))).status).toBe(414);
    const post = await request(daemon.url + '/metrics', { method: 'POST', body: 'x' });
    await post.body.dump();
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
  });

  const tools = checkTools(['promtool']);
  it.skipIf(tools.skip)(
    `passes promtool check metrics (only prom-client's own nodejs_* names draw lint)${tools.skipNote}`,
    async () => {
      const promtool = requireTool(tools, 'promtool');
      // promtool reads the classic text format (OpenMetrics is checked by a real Prometheus scrape in the e2e test).
      for (const accept of ['text/plain']) {
        const body = (await get('/metrics', { accept })).body.toString();
        const r = spawnSync(promtool, ['check', 'metrics'], { input: body, encoding: 'utf8' });
        const complaints = `${r.stdout}${r.stderr}`.split('\n').filter((l) => l.trim() !== '');
        // Exit 3 = lint findings only; errors would be exit 1.
        expect([0, 3]).toContain(r.status);
        expect(complaints.filter((l) => !l.startsWith('nodejs_'))).toEqual([]);
      }
    },
  );

  it('follows a node that dies and comes back', async () => {
    const node = fleet.node('flap');
    await waitFor('flap up', async () => sample(await metrics(), 'ledger_node_up{node="flap",network="test"}') === 1, {
      timeoutMs: 15_000,
      intervalMs: 50,
    });
    await node.kill();
    await waitFor(
      'flap down',
      async () => sample(await metrics(), 'ledger_node_up{node="flap",network="test"}') === 0,
      { timeoutMs: 15_000, intervalMs: 50 },
    );
    const m = await metrics();
    expect(
      sample(m, 'ledger_probe_failures_total{node="flap",network="test",probe="health",reason="connect"}'),
    ).toBeGreaterThan(0);
    expect(m).not.toMatch(/^ledger_node_block_height\{node="flap"/m);
    await node.revive();
    await waitFor(
      'flap back up',
      async () => sample(await metrics(), 'ledger_node_up{node="flap",network="test"}') === 1,
      { timeoutMs: 15_000, intervalMs: 50 },
    );
  });

  it('applies a new config: removed nodes vanish from /metrics, kept nodes keep their counters', async () => {
    const before = await metrics();
    const proxyFailures = sample(
      before,
      'ledger_probe_failures_total{node="proxy",network="main",probe="health",reason="http_5xx"}',
    )!;
    const keep = daemon.config().nodes.filter((n) => n.name !== 'junk');
    daemon.applyConfig(config(keep));
    const after = await metrics();
    expect(after).not.toContain('node="junk"');
    expect(
      sample(after, 'ledger_probe_failures_total{node="proxy",network="main",probe="health",reason="http_5xx"}'),
    ).toBeGreaterThanOrEqual(proxyFailures);
    expect(sample(after, 'ledger_exporter_config_reloads_total{result="success"}')).toBe(1);
    expect(sample(after, 'ledger_fleet_nodes{network="test"}')).toBe(3);
  });
});
