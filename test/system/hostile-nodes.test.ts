// Nodes that misbehave on purpose, over real loopback HTTP, against a whole daemon: what one
// node sends must never crash the exporter, break the merged /metrics, duplicate a series or
// re-expose our secrets (issue 15, findings 1, 3, 4, 6, 7 and 8).
import { spawnSync } from 'node:child_process';
import { Writable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import { PROBE_NAMES, type NodeTarget } from '../../src/domain.js';
import type { ExporterConfig } from '../../src/config/exporterConfig.js';
import { headerCacheSize } from '../../src/exposition/familyHeaders.js';
import { HEADER_CACHE_MAX_CHARS } from '../../src/exposition/budget.js';
import { parseExposition } from '../../src/exposition/index.js';
import { createLogger } from '../../src/logger.js';
import { defaultModel, ledgerNode, startRawServer, type RawHandler, type RawServer } from '../support/rawServers.js';
import { checkTools, requireTool } from '../support/prometheus-tools.js';
import { waitFor } from '../support/processes.js';

const API_KEY = 'k3y-hostile-4711';
const PASSWORD = 'pw-hostile-0815';
const BASIC = Buffer.from(`monitor:${PASSWORD}`).toString('base64');
const HELP_CHARS = 1_000_000;
const FLOOD_SERIES = 200_000;

/** A well-behaved ledger node whose /metrics answer is `metrics(req)`. */
function nodeWith(metrics: (req: Parameters<RawHandler>[0]) => string, model = defaultModel()): RawHandler {
  const base = ledgerNode(model);
  return (req, res, body, ctx) => {
    if (req.method === 'GET' && req.url === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(metrics(req));
      return;
    }
    base(req, res, body, ctx);
  };
}

let helpPolls = 0;
const flood = Array.from({ length: FLOOD_SERIES }, (_, i) => `flood{i="${i}"} 1`).join('\n') + '\nmalformed{ 1\n';
const emptyFamilies =
  Array.from({ length: 50_000 }, (_, i) => `# HELP e${i} only headers\n# TYPE e${i} gauge`).join('\n') + '\nlast 1\n';
const manyValidators = Array.from({ length: 100_000 }, (_, i) => ({
  address: i.toString(16).padStart(64, '0'),
  stake: '1000000000',
  weight: 1,
  agentScore: 1,
}));

const handlers: Record<string, { network: string; handler: RawHandler; over?: (url: string) => Partial<NodeTarget> }> =
  {
    // 1: ~1 MB of HELP, different on every poll.
    help: {
      network: 'main',
      handler: nodeWith(
        () => `# HELP churn ${String(++helpPolls).padEnd(HELP_CHARS, 'h')}\n# TYPE churn gauge\nchurn 1\n`,
      ),
    },
    // 3: a histogram on one node, its sample names as families on the next.
    hist: {
      network: 'main',
      handler: nodeWith(
        () =>
          '# TYPE h histogram\nh_bucket{le="1"} 1\nh_bucket{le="+Inf"} 2\nh_sum 3\nh_count 2\n# TYPE ok gauge\nok 1\n',
      ),
    },
    clash: {
      network: 'main',
      handler: nodeWith(
        () => '# TYPE h_count gauge\nh_count 5\n# TYPE h_sum counter\nh_sum 7\n# TYPE fine gauge\nfine 1\n',
      ),
    },
    // 4: labels that Prometheus's renaming would merge into one series.
    rename: { network: 'main', handler: nodeWith(() => 'x{node="a"} 1\nx{exported_node="a"} 2\n') },
    // 6: a node echoing our request headers into its own labels and HELP.
    echo: {
      network: 'main',
      handler: nodeWith(
        (req) =>
          `# HELP plain seen ${String(req.headers['x-api-key'])}\nplain 1\n` +
          `echo{key="${String(req.headers['x-api-key'])}"} 1\n` +
          `echo{auth="${String(req.headers.authorization)}"} 1\n`,
      ),
      over: (url) => ({
        url: url.replace('http://', `http://monitor:${PASSWORD}@`),
        headers: { 'x-api-key': { value: API_KEY } },
      }),
    },
    // 7: far more series than the cap (and a broken line after them), and families without samples.
    flood: { network: 'main', handler: nodeWith(() => flood) },
    headers: { network: 'main', handler: nodeWith(() => emptyFamilies) },
    // 4 and 8: one validator written two ways; a hundred thousand validators.
    dupval: {
      network: 'dupnet',
      handler: nodeWith(
        () => 'up 1\n',
        defaultModel({
          validators: [
            { address: `0x${'AB'.repeat(32)}`, stake: '1000000000', weight: 1, agentScore: 1 },
            { address: 'ab'.repeat(32), stake: '1000000000', weight: 1, agentScore: 1 },
            { address: 'cd'.repeat(32), stake: '1000000000', weight: 1, agentScore: 1 },
          ],
        }),
      ),
    },
    manyval: { network: 'bignet', handler: nodeWith(() => 'up 1\n', defaultModel({ validators: manyValidators })) },
  };

const servers: RawServer[] = [];
let daemon: Daemon;

async function metrics(accept = 'text/plain'): Promise<string> {
  const res = await request(`${daemon.url}/metrics`, { headers: { accept } });
  return res.body.text();
}

function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

beforeAll(async () => {
  const nodes: NodeTarget[] = [];
  for (const [name, h] of Object.entries(handlers)) {
    const server = await startRawServer(h.handler);
    servers.push(server);
    nodes.push({
      name,
      url: server.url,
      network: h.network,
      labels: {},
      intervalMs: 400,
      timeoutMs: 5_000,
      rpcNamespace: 'claw',
      probes: [...PROBE_NAMES],
      headers: {},
      ...h.over?.(server.url),
    });
  }
  const config: ExporterConfig = {
    listen: { host: '127.0.0.1', port: 0 },
    polling: { concurrency: 16, maxResponseBytes: 32 << 20, maxUpstreamSeries: 2000 },
    nodes,
    networks: {},
    evidence: { dir: '/nonexistent', maxBytes: 1 << 20, maxAgeDays: 1 },
  };
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  daemon = await startDaemon(config, {
    logger: createLogger({ level: 'silent', destination: sink }),
    evidence: false,
    defaultMetrics: false,
  });
  await waitFor('first poll round', () => daemon.ready(), { timeoutMs: 30_000, intervalMs: 50 });
  // Several polls of the node whose HELP changes every time.
  await waitFor('six polls of the HELP-churning node', () => helpPolls >= 6, { timeoutMs: 30_000, intervalMs: 50 });
}, 60_000);

afterAll(async () => {
  await daemon?.close();
  await Promise.all(servers.map((s) => s.close()));
});

describe('one hostile node cannot take the exporter or its output', () => {
  it('cuts HELP text at the budget and keeps the shared header cache within its bound (finding 1)', async () => {
    const m = await metrics();
    const help = m.split('\n').find((l) => l.startsWith('# HELP ledger_upstream_churn '));
    expect(help).toBeDefined();
    expect(help!.length).toBeLessThan(1024 + 64);
    expect(headerCacheSize().chars).toBeLessThanOrEqual(HEADER_CACHE_MAX_CHARS);
    expect(help!.slice('# HELP ledger_upstream_churn '.length)).toHaveLength(1024);
  });

  const tools = checkTools(['promtool']);
  it.skipIf(tools.skip)(
    `keeps /metrics parsable when one node's families clash with another's sample names (finding 3)${tools.skipNote}`,
    async () => {
      const text = await metrics();
      const r = spawnSync(requireTool(tools, 'promtool'), ['check', 'metrics'], {
        input: text,
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(`${r.stdout}${r.stderr}`).not.toMatch(/error|second TYPE|second HELP/i);
      expect([0, 3]).toContain(r.status);
      expect(() => parseExposition(text)).not.toThrow();
      // The clashing families of "clash" are left out and counted; its other family and "hist" stay.
      expect(text).toContain('ledger_upstream_h_count{node="hist",network="main"} 2');
      expect(text).not.toMatch(/^ledger_upstream_h_(count|sum)\{node="clash"/m);
      expect(value(text, 'ledger_upstream_fine{node="clash",network="main"}')).toBe(1);
      expect(value(text, 'ledger_exporter_upstream_dropped_samples{node="clash",reason="conflict"}')).toBe(2);
    },
  );

  it('renames upstream labels without merging two series into one (finding 4)', async () => {
    const text = await metrics();
    expect(value(text, 'ledger_upstream_x{node="rename",network="main",exported_node="a"}')).toBe(1);
    expect(value(text, 'ledger_upstream_x{node="rename",network="main",exported_exported_node="a"}')).toBe(2);
  });

  it('counts a validator written with and without 0x, in two cases, once (finding 4)', async () => {
    const text = await metrics();
    expect(value(text, 'ledger_validators_active{network="dupnet"}')).toBe(2);
    expect(value(text, 'ledger_validators_stake_tokens{network="dupnet"}')).toBe(2);
    expect(value(text, 'ledger_node_validators{node="dupval",network="dupnet"}')).toBe(2);
    expect(
      text
        .split('\n')
        .filter((l) => l.startsWith(`ledger_validator_stake_tokens{network="dupnet",validator="${'ab'.repeat(32)}"}`)),
    ).toHaveLength(1);
  });

  it('never re-exposes our headers or URL password that a node echoes into its metrics (finding 6)', async () => {
    for (const accept of ['text/plain', 'application/openmetrics-text; version=1.0.0']) {
      const text = await metrics(accept);
      for (const secret of [API_KEY, PASSWORD, BASIC]) expect(text).not.toContain(secret);
      expect(text).toContain('ledger_upstream_plain{node="echo",network="main"} 1');
    }
    const text = await metrics();
    expect(text).toContain('# HELP ledger_upstream_plain seen [REDACTED]');
    expect(value(text, 'ledger_exporter_upstream_dropped_samples{node="echo",reason="secret"}')).toBe(2);
  });

  it('stops reading a huge answer at the series cap: keeps the first 2000, counts the rest (finding 7)', async () => {
    const text = await metrics();
    // The broken line after the cap is never read: the answer is kept, not refused whole.
    expect(value(text, 'ledger_probe_success{node="flood",network="main",probe="metrics"}')).toBe(1);
    expect(text.split('\n').filter((l) => l.startsWith('ledger_upstream_flood{'))).toHaveLength(2000);
    expect(value(text, 'ledger_exporter_upstream_dropped_samples{node="flood",reason="budget"}')).toBe(
      FLOOD_SERIES + 1 - 2000,
    );
    expect(value(text, 'ledger_exporter_upstream_truncated_total{node="flood"}')).toBeGreaterThanOrEqual(1);
    expect(value(text, 'ledger_exporter_upstream_truncated_total{node="hist"}')).toBe(0);
  });

  it('caps families that have no samples (finding 7)', async () => {
    const text = await metrics();
    // The answer is kept (not refused), but the cap stopped the parser before its one sample.
    expect(value(text, 'ledger_probe_success{node="headers",network="main",probe="metrics"}')).toBe(1);
    expect(text).not.toMatch(/^ledger_upstream_\w+\{node="headers"/m);
    expect(value(text, 'ledger_exporter_upstream_truncated_total{node="headers"}')).toBeGreaterThanOrEqual(1);
    expect(value(text, 'ledger_exporter_upstream_dropped_samples{node="headers",reason="budget"}')).toBe(1);
  });

  it('refuses a validator set beyond the per-node cap instead of adding a series per validator', async () => {
    const text = await metrics();
    expect(text).not.toMatch(/^ledger_validator_stake_tokens\{network="bignet"/m);
    expect(value(text, 'ledger_probe_success{node="manyval",network="bignet",probe="validators"}')).toBe(0);
    expect(
      value(
        text,
        'ledger_probe_failures_total{node="manyval",network="bignet",probe="validators",reason="invalid_response"}',
      ),
    ).toBeGreaterThanOrEqual(1);
  });
});
