// The per-node budget as config keys (polling.maxUpstreamSeries, maxUpstreamBytes,
// maxUpstreamFamilies, maxUpstreamHelpChars, maxValidators): bad values are refused with
// file:line:col, a lowered budget read from a real config file cuts what nodes make the exporter
// hold over real loopback HTTP, and a reload keeps the start-up budget (polling is restart-only).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/config/index.js';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import { DEFAULT_UPSTREAM_BUDGET, parseExposition } from '../../src/exposition/index.js';
import { createLogger } from '../../src/logger.js';
import { configProblems, yaml } from '../support/configProblems.js';
import { defaultModel, ledgerNode, startRawServer, type RawHandler, type RawServer } from '../support/rawServers.js';
import { waitFor } from '../support/processes.js';

const NODE = ['nodes:', '  - name: a', '    url: http://10.0.0.1:9710'];

const problems = (text: string) =>
  configProblems(text, { file: '/etc/lfe/fleet.yaml' }).map((p) => p.replace('/etc/lfe/', ''));

describe('per-node budget keys', () => {
  it('refuses bad values with file:line:col and the key path', () => {
    const got = problems(
      yaml(
        'polling:',
        '  maxUpstreamSeries: 0',
        '  maxUpstreamBytes: lots',
        '  maxUpstreamFamilies: 2.5',
        '  maxUpstreamHelpChars: "80"',
        '  maxValidators: -1',
        ...NODE,
      ),
    );
    expect(got).toHaveLength(5);
    expect(got[0]).toBe('fleet.yaml:2:22: polling.maxUpstreamSeries: Too small: expected number to be >=1');
    expect(got[1]).toMatch(
      /^fleet\.yaml:3:21: polling\.maxUpstreamBytes: invalid byte size: expected a number of bytes or a size such as 512KiB/,
    );
    expect(got[2]).toBe('fleet.yaml:4:24: polling.maxUpstreamFamilies: expected int, received number');
    expect(got[3]).toBe('fleet.yaml:5:25: polling.maxUpstreamHelpChars: expected number, received string');
    expect(got[4]).toBe('fleet.yaml:6:18: polling.maxValidators: Too small: expected number to be >=1');
  });

  it('refuses a byte budget below 1 KiB and counts above their bounds', () => {
    expect(problems(yaml('polling: {maxUpstreamBytes: 512, maxUpstreamFamilies: 1000001}', ...NODE))).toEqual([
      'fleet.yaml:1:29: polling.maxUpstreamBytes: must be between 1024 and 1073741824 bytes',
      'fleet.yaml:1:55: polling.maxUpstreamFamilies: Too big: expected number to be <=1000000',
    ]);
  });
});

// ---- over loopback, with the config read from a real file ----

const FAMILIES = 40;
const LONG_SERIES = 50;
const LONG_VALUE = 'v'.repeat(1000);
const wideMetrics = Array.from(
  { length: FAMILIES },
  (_, i) => `# HELP f${i} ${'help text '.repeat(20)}\n# TYPE f${i} gauge\nf${i} ${i}\n`,
).join('');
const longMetrics =
  Array.from({ length: LONG_SERIES }, (_, i) => `long{i="${i}",v="${LONG_VALUE}"} 1`).join('\n') + '\n';
const twelveValidators = Array.from({ length: 12 }, (_, i) => ({
  address: (i + 1).toString(16).padStart(64, '0'),
  stake: '1000000000',
  weight: 1,
  agentScore: 1,
}));

function nodeWith(metrics: string, model = defaultModel()): RawHandler {
  const base = ledgerNode(model);
  return (req, res, body, ctx) => {
    if (req.method === 'GET' && req.url === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(metrics);
      return;
    }
    base(req, res, body, ctx);
  };
}

let dir: string;
let configFile: string;
let daemon: Daemon;
const servers: Record<string, RawServer> = {};
const logLines: string[] = [];

function configText(budget: string[]): string {
  return yaml(
    'listen: 127.0.0.1:0',
    'defaults: {interval: 2s, timeout: 2s, rpcNamespace: claw}',
    'polling:',
    ...budget.map((l) => `  ${l}`),
    'nodes:',
    `  - {name: wide, url: "${servers.wide!.url}", network: widenet}`,
    `  - {name: long, url: "${servers.long!.url}", network: longnet}`,
    `evidence: {dir: "${join(dir, 'evidence')}"}`,
  );
}

const LOWERED = ['maxUpstreamFamilies: 5', 'maxUpstreamHelpChars: 16', 'maxUpstreamBytes: 16KiB', 'maxValidators: 10'];

async function metrics(): Promise<string> {
  const res = await request(`${daemon.url}/metrics`);
  return res.body.text();
}

function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lfe-polling-budget-'));
  servers.wide = await startRawServer(nodeWith(wideMetrics, defaultModel({ validators: twelveValidators })));
  servers.long = await startRawServer(nodeWith(longMetrics));
  configFile = join(dir, 'fleet.yaml');
  writeFileSync(configFile, configText(LOWERED));
  const config = await loadConfigFile(configFile, {});
  const sink = new Writable({
    write: (chunk: Buffer, _e, cb) => {
      logLines.push(chunk.toString('utf8'));
      cb();
    },
  });
  daemon = await startDaemon(config, {
    logger: createLogger({ level: 'info', destination: sink }),
    defaultMetrics: false,
  });
  await waitFor(
    'a poll of both nodes',
    () => daemon.state.get('wide')?.upstream !== undefined && daemon.state.get('long')?.upstream !== undefined,
    {
      timeoutMs: 30_000,
      intervalMs: 50,
    },
  );
}, 60_000);

afterAll(async () => {
  await daemon?.close();
  await Promise.all(Object.values(servers).map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe('a lowered per-node budget over loopback', () => {
  it('would keep everything at the defaults (the answers are within them)', () => {
    expect(parseExposition(wideMetrics, { budget: DEFAULT_UPSTREAM_BUDGET }).families).toHaveLength(FAMILIES);
    expect(parseExposition(longMetrics, { budget: DEFAULT_UPSTREAM_BUDGET }).families[0]?.samples).toHaveLength(
      LONG_SERIES,
    );
  });

  it('stops at maxUpstreamFamilies and cuts HELP at maxUpstreamHelpChars', async () => {
    const text = await metrics();
    expect(wideFamilies(text)).toBe(5);
    const help = text.split('\n').find((l) => l.startsWith('# HELP ledger_upstream_f0 '));
    expect(help?.slice('# HELP ledger_upstream_f0 '.length)).toBe('help text help t');
    expect(value(text, 'ledger_exporter_upstream_truncated_total{node="wide"}')).toBeGreaterThanOrEqual(1);
  });

  it('stops at maxUpstreamBytes and counts the series left out', async () => {
    const text = await metrics();
    const kept = text.split('\n').filter((l) => l.startsWith('ledger_upstream_long{node="long"')).length;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(LONG_SERIES);
    // Each kept series costs its strings (over 1,000 characters) plus the per-sample overhead.
    expect(kept * (LONG_VALUE.length + 120)).toBeLessThanOrEqual(16 * 1024);
    expect(value(text, 'ledger_exporter_upstream_dropped_samples{node="long",reason="budget"}')).toBe(
      LONG_SERIES - kept,
    );
  });

  it('refuses a validator list longer than maxValidators', async () => {
    const text = await waitFor(
      'a refused validators probe',
      async () => {
        const t = await metrics();
        return (value(
          t,
          'ledger_probe_failures_total{node="wide",network="widenet",probe="validators",reason="invalid_response"}',
        ) ?? 0) >= 1
          ? t
          : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    expect(value(text, 'ledger_probe_success{node="wide",network="widenet",probe="validators"}')).toBe(0);
    expect(text).not.toMatch(/^ledger_validator_stake_tokens\{network="widenet"/m);
  });

  it('keeps the start-up budget across a reload and says it takes effect at the next restart', async () => {
    writeFileSync(
      configFile,
      configText([
        'maxUpstreamFamilies: 2',
        'maxUpstreamHelpChars: 16',
        'maxUpstreamBytes: 16KiB',
        'maxValidators: 10',
      ]),
    );
    daemon.applyConfig(await loadConfigFile(configFile, {}));
    const warning = logLines
      .map((l) => JSON.parse(l) as { msg: string; settings?: string[] })
      .find((l) => /next restart/.test(l.msg));
    expect(warning?.settings).toEqual(['polling']);
    const version = daemon.state.get('wide')!.upstreamVersion;
    await waitFor('two more polls of the wide node', () => daemon.state.get('wide')!.upstreamVersion >= version + 2, {
      timeoutMs: 20_000,
      intervalMs: 50,
    });
    expect(wideFamilies(await metrics())).toBe(5);
  });
});

/** Upstream families of the node "wide" in a scrape. */
function wideFamilies(text: string): number {
  return new Set(
    text
      .split('\n')
      .filter((l) => /^ledger_upstream_f\d+\{node="wide"/.test(l))
      .map((l) => l.slice(0, l.indexOf('{'))),
  ).size;
}
