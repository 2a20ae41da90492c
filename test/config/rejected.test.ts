// A rejected config leaves nothing behind, at start and on reload: none of its secrets reach the
// run's Secrets, a log line or an error; none of its nodes is polled, shown on /metrics or on a
// page; none of its sections (alerting here) starts. The rejected file carries canaries in every
// place a secret can sit: a node URL password, a node header, a webhook URL and its header.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertingComponent } from '../../src/alerting/component.js';
import { loadConfigFile } from '../../src/config/index.js';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import { createLogger } from '../../src/logger.js';
import { Secrets } from '../../src/redact.js';
import { configReloader } from '../../src/daemon/reload.js';
import { statusComponent } from '../../src/status/component.js';
import { VERSION } from '../../src/version.js';
import { findCanaries, makeCanary, type Canary } from '../support/canaries.js';
import { requireBuiltCli, runCli } from '../support/cliProcess.js';
import { sendJson, startRawServer, type RawServer } from '../support/rawServers.js';

const GOOD_PASSWORD = makeCanary('good-url-password');
const C = {
  urlPassword: makeCanary('rejected-url-password'),
  header: makeCanary('rejected-header'),
  hookPath: makeCanary('rejected-hook-path'),
  hookToken: makeCanary('rejected-hook-token'),
};
const REJECTED: Canary[] = Object.values(C);

let dir: string;
let good: RawServer;
let intruder: RawServer;

const healthy = (_req: unknown, res: Parameters<typeof sendJson>[0]) =>
  sendJson(res, 200, { status: 'ok', height: 10, version: '1.0.0' });

/** The good node's lines, shared by both configs. */
function goodNode(): string[] {
  return [
    'listen: 127.0.0.1:0',
    'defaults: {interval: 300ms, timeout: 250ms, probes: [health]}',
    'nodes:',
    `  - {name: good, url: "http://mon:${encodeURIComponent(GOOD_PASSWORD.value)}@127.0.0.1:${good.port}", ` +
      `network: main}`,
  ];
}

function goodConfig(): string {
  return [...goodNode(), 'evidence: {dir: ./evidence}', ''].join('\n');
}

/** The good config plus a node, a header and an alerting section, rejected for one timeout. */
function rejectedConfig(): string {
  return [
    ...goodNode(),
    `  - name: intruder`,
    `    url: "http://mon:${encodeURIComponent(C.urlPassword.value)}@127.0.0.1:${intruder.port}"`,
    `    network: main`,
    `    headers: {Authorization: "Bearer ${C.header.value}"}`,
    `    timeout: 5s`,
    'evidence: {dir: ./evidence}',
    'alerting:',
    '  stateDir: ./alerting',
    '  receivers:',
    `    - name: hook`,
    `      webhook: {url: "https://hooks.example.org/${encodeURIComponent(C.hookPath.value)}", headers: ` +
      `{authorization: "Token ${C.hookToken.value}"}}`,
    '',
  ].join('\n');
}

const TIMEOUT_PROBLEM = /config\.yaml:9:\d+: nodes\[1\]\.timeout: timeout must not exceed interval/;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lfe-rejected-'));
  good = await startRawServer(healthy);
  intruder = await startRawServer(healthy);
});

afterAll(async () => {
  await good?.close();
  await intruder?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a config rejected at start', () => {
  it('stops the exporter before anything starts, and its problems name no secret', async () => {
    requireBuiltCli();
    const startDir = mkdtempSync(join(dir, 'start-'));
    const file = join(startDir, 'config.yaml');
    writeFileSync(file, rejectedConfig());
    const r = await runCli(['--config', file, '--log-format', 'json']);
    expect(r.overflow).toBe(false);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(TIMEOUT_PROBLEM);
    expect(r.stdout).not.toContain('exporter listening');
    expect([...findCanaries('stdout', r.stdout, REJECTED), ...findCanaries('stderr', r.stderr, REJECTED)]).toEqual([]);
    // Nothing of it ran: no probe sent, no evidence or alerting state created.
    expect(intruder.requests).toEqual([]);
    expect(existsSync(join(startDir, 'evidence'))).toBe(false);
    expect(existsSync(join(startDir, 'alerting'))).toBe(false);
  });
});

describe('a config rejected on reload', () => {
  let daemon: Daemon;
  let logger: ReturnType<typeof createLogger>;
  let logs = '';
  const secrets = new Secrets();
  const file = () => join(dir, 'config.yaml');
  const get = async (path: string) => {
    const res = await fetch(`${daemon.url}${path}`);
    return { status: res.status, text: await res.text() };
  };

  beforeAll(async () => {
    writeFileSync(file(), goodConfig());
    const sink = new Writable({ write: (chunk, _enc, done) => ((logs += chunk.toString()), done()) });
    logger = createLogger({ level: 'debug', destination: sink, secrets });
    const alerting = alertingComponent();
    const status = statusComponent({
      logger,
      version: VERSION,
      file: false,
      activeAlerts: () => alerting.statusAlerts(),
    });
    daemon = await startDaemon(await loadConfigFile(file()), {
      logger,
      secrets,
      defaultMetrics: false,
      components: [status, alerting],
    });
  });

  afterAll(async () => {
    await daemon?.close();
  });

  it('keeps the running config and adds nothing of the rejected one', async () => {
    const known = secrets.size;
    expect(secrets.scrub(GOOD_PASSWORD.value)).not.toContain(GOOD_PASSWORD.value);
    // The reload the CLI runs on SIGHUP and on a change of the file.
    const reload = configReloader(file(), daemon, logger, {
      apply: (c) => c,
      sharded: () => false,
      summary: () => ({}),
    });
    writeFileSync(file(), rejectedConfig());
    await reload('SIGHUP');

    // Rejected, counted and logged with its problem.
    expect(logs).toContain('configuration reload rejected; the running configuration stays');
    expect(logs).toMatch(TIMEOUT_PROBLEM);
    expect(daemon.config().nodes.map((n) => n.name)).toEqual(['good']);
    expect(daemon.config().alerting).toBeUndefined();
    // Its secrets are in no Secrets, no log line.
    expect(secrets.size).toBe(known);
    for (const c of REJECTED) expect(secrets.scrub(`x ${c.value} y`)).toBe(`x ${c.value} y`);

    // Polling goes on for the good node (two intervals at least), never for the rejected one.
    const before = good.requests.length;
    const until = Date.now() + 10_000;
    while (good.requests.length < before + 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(good.requests.length).toBeGreaterThanOrEqual(before + 2);
    expect(intruder.requests).toEqual([]);

    // No metric, page, API answer or alerting of it.
    const metrics = await get('/metrics');
    expect(metrics.text).toContain('ledger_node_up{node="good",network="main"} 1');
    expect(metrics.text).not.toContain('intruder');
    expect(metrics.text).toContain('ledger_exporter_config_reloads_total{result="failure"} 1');
    expect(metrics.text).toContain('ledger_exporter_config_reloads_total{result="success"} 0');
    expect((await get('/nodes/good')).status).toBe(200);
    expect((await get('/nodes/intruder')).status).toBe(404);
    expect((await get('/api/v1/nodes/intruder')).status).toBe(404);
    expect((await get('/api/v1/nodes')).text).not.toContain('intruder');
    expect(JSON.parse((await get('/api/alerts')).text)).toEqual({ enabled: false, alerts: [] });
    expect(existsSync(join(dir, 'alerting'))).toBe(false);

    const outputs = [logs, metrics.text, (await get('/')).text, (await get('/api/v1/nodes')).text];
    expect(outputs.flatMap((text, i) => findCanaries(`output ${i}`, text, REJECTED))).toEqual([]);
  });
});
