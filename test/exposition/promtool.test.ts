// Checks rendered upstream output with the real Prometheus tools: `promtool check metrics` for the
// text format (parser plus lint), and a real Prometheus server scraping it over loopback for
// OpenMetrics, whose parser promtool does not have. Team rule: skip when the tools are missing,
// fail when REQUIRE_PROMETHEUS=1.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExposition, prepareUpstream, renderUpstream, type PreparedUpstream } from '../../src/exposition/index.js';
import { checkTools, requireTool } from '../support/prometheus-tools.js';

const fixture = (name: string): string =>
  readFileSync(fileURLToPath(new URL(`../fixtures/exposition/${name}`, import.meta.url)), 'utf8');

/** Several nodes: two ledger nodes, a node_exporter, a prom-client app with escapes, and collisions. */
function fleet(): PreparedUpstream[] {
  const ledger = parseExposition(fixture('rust-prometheus.txt')).families;
  return [
    prepareUpstream('val-eu-1', 'mainnet', ledger),
    prepareUpstream('val-us-2', 'mainnet', ledger),
    prepareUpstream('host "a"', 'testnet', parseExposition(fixture('node-exporter.txt')).families),
    prepareUpstream('app\\1', 'test\nnet', parseExposition(fixture('prom-client.txt')).families),
    prepareUpstream(
      'odd',
      'mainnet',
      parseExposition(
        [
          '# HELP peers_connected Peers, as another build counts them',
          '# TYPE peers_connected counter',
          'peers_connected 3',
          '# HELP labelled_info Upstream labels that collide with ours',
          '# TYPE labelled_info gauge',
          'labelled_info{node="inner",network="lan",exported_node="x"} 1',
          '# HELP restarts_total Restarts (counter with _total)',
          '# TYPE restarts_total counter',
          'restarts_total 2 1700000000000',
        ].join('\n'),
      ).families,
    ),
  ];
}

const tools = checkTools(['promtool']);

describe('promtool check metrics on rendered upstream output', () => {
  function promtoolCheck(text: string): { status: number | null; output: string } {
    const r = spawnSync(requireTool(tools, 'promtool'), ['check', 'metrics'], {
      input: text,
      encoding: 'utf8',
      timeout: 20_000,
    });
    return { status: r.status, output: `${r.stdout}${r.stderr}` };
  }

  it.skipIf(tools.skip)(`accepts output from several nodes, with no lint problems${tools.skipNote}`, () => {
    const text = renderUpstream(fleet(), { openMetrics: false });
    const r = promtoolCheck(text);
    expect(r.output).toBe('');
    expect(r.status).toBe(0);
    // The conflicting `peers_connected` counter of node "odd" was left out, not mixed in.
    expect(text).not.toContain('ledger_upstream_peers_connected{node="odd"');
  });

  it.skipIf(tools.skip)(`rejects what per-node blocks would give (the check is able to fail)${tools.skipNote}`, () => {
    const naive = fleet()
      .map((s) => renderUpstream([s], { openMetrics: false }))
      .join('');
    const r = promtoolCheck(naive);
    expect(r.status).not.toBe(0);
    expect(r.output).toMatch(/second HELP line for metric name "ledger_upstream_/);
  });
});

const server = checkTools(['prometheus']);

describe('a real Prometheus scraping rendered output', () => {
  let prom: ChildProcess | undefined;
  let http: Server | undefined;
  let dir: string | undefined;
  let promUrl = '';
  const omText = `${renderUpstream(fleet(), { openMetrics: true })}# EOF\n`;
  const text = renderUpstream(fleet(), { openMetrics: false });

  beforeAll(async () => {
    if (server.skip) return;
    const binary = requireTool(server, 'prometheus');
    const bodies: Record<string, [string, string]> = {
      '/text': ['text/plain; version=0.0.4; charset=utf-8', text],
      '/om': ['application/openmetrics-text; version=1.0.0; charset=utf-8', omText],
      // Without the closing # EOF, OpenMetrics is invalid: proves the scrape check can fail.
      '/om-bad': ['application/openmetrics-text; version=1.0.0; charset=utf-8', omText.replace(/# EOF\n$/, '')],
    };
    http = createServer((req, res) => {
      const body = bodies[req.url ?? ''];
      res.writeHead(body ? 200 : 404, { 'content-type': body?.[0] ?? 'text/plain' });
      res.end(body?.[1] ?? 'not found');
    });
    await new Promise<void>((resolve) => http?.listen(0, '127.0.0.1', resolve));
    const target = `127.0.0.1:${(http.address() as AddressInfo).port}`;
    const promPort = await freePort();
    promUrl = `http://127.0.0.1:${promPort}`;
    dir = mkdtempSync(path.join(tmpdir(), 'exposition-prom-'));
    const job = (name: string): string =>
      `  - job_name: ${name}\n    metrics_path: /${name}\n    static_configs: [{targets: ['${target}']}]\n`;
    writeFileSync(
      path.join(dir, 'prometheus.yml'),
      `global: {scrape_interval: 1s, scrape_timeout: 1s}\nscrape_configs:\n${job('text')}${job('om')}${job('om-bad')}`,
    );
    prom = spawn(
      binary,
      [
        `--config.file=${path.join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${promPort}`,
        '--log.level=error',
      ],
      { stdio: 'ignore' },
    );
    // Bounded wait until every target has been scraped once.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const targets = await activeTargets().catch(() => []);
      if (targets.length === 3 && targets.every((t) => t.health !== 'unknown')) break;
      if (Date.now() > deadline) throw new Error('Prometheus did not scrape the three targets within 30 s');
      await new Promise((r) => setTimeout(r, 250));
    }
  }, 45_000);

  afterAll(async () => {
    if (prom && prom.exitCode === null) {
      const exited = new Promise((r) => prom?.once('exit', r));
      prom.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      if (prom.exitCode === null) prom.kill('SIGKILL');
    }
    await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  interface Target {
    labels: { job: string };
    health: string;
    lastError: string;
  }
  async function activeTargets(): Promise<Target[]> {
    const r = await fetch(`${promUrl}/api/v1/targets?state=active`);
    const body = (await r.json()) as { data: { activeTargets: Target[] } };
    return body.data.activeTargets;
  }
  async function query(q: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> {
    const r = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(q)}`);
    const body = (await r.json()) as {
      status: string;
      data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
    };
    expect(body.status).toBe('success');
    return body.data.result;
  }
  const sampleLines = (t: string): number => t.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length;

  it.skipIf(server.skip)(`ingests the text format and OpenMetrics output whole${server.skipNote}`, async () => {
    const byJob = new Map((await activeTargets()).map((t) => [t.labels.job, t]));
    expect(byJob.get('text')).toMatchObject({ health: 'up', lastError: '' });
    expect(byJob.get('om')).toMatchObject({ health: 'up', lastError: '' });
    for (const job of ['text', 'om']) {
      const scraped = await query(`scrape_samples_scraped{job="${job}"}`);
      expect(Number(scraped[0]?.value[1])).toBe(sampleLines(job === 'om' ? omText : text));
    }
  });

  it.skipIf(server.skip)(
    `stores the series with node, network and renamed upstream labels${server.skipNote}`,
    async () => {
      const blocks = await query('ledger_upstream_blocks_total{job="om"}');
      expect(blocks.map((r) => r.metric.node).sort()).toEqual(['val-eu-1', 'val-us-2']);
      expect(blocks.every((r) => r.value[1] === '184467' && r.metric.network === 'mainnet')).toBe(true);
      const info = await query('ledger_upstream_labelled_info{job="text"}');
      expect(info[0]?.metric).toMatchObject({
        node: 'odd',
        network: 'mainnet',
        exported_node: 'inner',
        exported_exported_node: 'x',
        exported_network: 'lan',
      });
      const escaped = await query('ledger_upstream_http_requests_total{job="om",status="500"}');
      expect(escaped[0]?.metric).toMatchObject({ node: 'app\\1', network: 'test\nnet', path: 'C:\\share\\dir' });
    },
  );

  it.skipIf(server.skip)(`marks invalid OpenMetrics as a failed scrape${server.skipNote}`, async () => {
    const bad = (await activeTargets()).find((t) => t.labels.job === 'om-bad');
    expect(bad?.health).toBe('down');
    expect(bad?.lastError).toMatch(/EOF/);
  });
});

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
