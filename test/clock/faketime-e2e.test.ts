// The real exporter (dist/cli.js) under libfaketime: its wall clock is stepped back 10 minutes and
// then forward an hour through FAKETIME_TIMESTAMP_FILE (read at every call), its monotonic clock
// left real, as NTP, a VM resume or a hand-set clock do. Polling keeps its pace through both
// steps, a pending LedgerNodeDown (for: 2m) does not fire at the forward step, each step is
// logged once and counted, and the times the status API and /metrics show follow the wall clock.
// Skipped without libfaketime, unless REQUIRE_FAKETIME=1 (CI).
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimFleet } from '../../src/sim/index.js';
import { startExporter, type ExporterChild } from '../support/exporterChild.js';
import { writeNodeDownYaml } from '../support/nodeDownYaml.js';
import { waitFor, waitReady } from '../support/processes.js';

const LIBS = ['x86_64-linux-gnu', 'aarch64-linux-gnu']
  .map((a) => `/usr/lib/${a}/faketime/libfaketime.so.1`)
  .concat('/usr/lib/faketime/libfaketime.so.1');
const LIB = LIBS.find((l) => existsSync(l));
const REQUIRED = process.env.REQUIRE_FAKETIME === '1';
if (!LIB && REQUIRED)
  throw new Error(
    `REQUIRE_FAKETIME=1 but libfaketime is not installed (looked for ${LIBS.join(', ')}); apt-get install faketime`,
  );
if (!LIB)
  console.warn('test/clock/faketime-e2e: skipped (REQUIRE_FAKETIME=1 makes this a failure): libfaketime not installed');

const VICTIM = 'ft-2';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!LIB)('wall-clock steps under libfaketime, real exporter', () => {
  let dir = '';
  let fleet: SimFleet;
  let exporter: ExporterChild | undefined;
  let stepFile = '';

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'lfe-faketime-'));
    stepFile = path.join(dir, 'faketime');
    writeFileSync(stepFile, '+0\n');
    fleet = await SimFleet.start(
      ['ft-1', VICTIM].map((name) => ({ name, network: 'ft', build: 'current' as const, peers: 5 })),
      { host: '127.0.0.1', layout: 'port-per-node', blockTimeMs: 500 },
    );
    const configPath = writeNodeDownYaml(dir, fleet.nodes, 'ft', [], { for: '2m' });
    const env = {
      ...process.env,
      LD_PRELOAD: LIB,
      FAKETIME_TIMESTAMP_FILE: stepFile,
      FAKETIME_NO_CACHE: '1',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
    };
    exporter = await startExporter(configPath, [], 30_000, undefined, env);
    await waitReady(exporter.url, 'first poll round', { timeoutMs: 20_000 });
  }, 60_000);

  afterAll(async () => {
    await exporter?.kill();
    await fleet?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const steps = async () =>
    Number(
      (await (await fetch(`${exporter!.url}/metrics`)).text()).match(/^ledger_exporter_clock_steps_total (\d+)/m)?.[1],
    );
  const alerts = async () =>
    ((await (await fetch(`${exporter!.url}/api/alerts`)).json()) as { alerts: Array<{ name: string; state: string }> })
      .alerts;

  it('keeps polling through a backward step, fires nothing at a forward step, and logs and counts each', async () => {
    const node = fleet.node('ft-1');
    writeFileSync(stepFile, '-10m\n');
    let before = node.requestCount();
    await sleep(3_000);
    // 500 ms interval, two probes a poll: ~12 requests in 3 s (the old scheduler waited 10 minutes).
    expect(node.requestCount() - before).toBeGreaterThanOrEqual(6);
    await waitFor('the backward step counted', async () => ((await steps()) === 1 ? true : undefined), {
      timeoutMs: 5_000,
    });

    await fleet.node(VICTIM).kill();
    await waitFor(
      'LedgerNodeDown pending',
      async () => (await alerts()).find((a) => a.name === 'LedgerNodeDown' && a.state === 'pending'),
      { timeoutMs: 10_000 },
    );
    writeFileSync(stepFile, '+1h\n');
    before = node.requestCount();
    await sleep(4_000);
    expect((await alerts()).map((a) => [a.name, a.state])).toEqual([['LedgerNodeDown', 'pending']]);
    expect(node.requestCount() - before).toBeGreaterThanOrEqual(8);
    expect(await steps()).toBe(2);
    // Counted is not yet read here: the log line comes through stdout, written asynchronously.
    await exporter!.waitForLog('the forward step logged', (l) => String(l.msg).startsWith('wall clock stepped +'));
    const stepped = exporter!.logs().filter((l) => typeof l.msg === 'string' && l.msg.startsWith('wall clock stepped'));
    expect(stepped.map((l) => l.msg!.slice(0, 30))).toEqual([
      'wall clock stepped -600.0 s: p',
      'wall clock stepped +4200.0 s: ',
    ]);

    // Times for people follow the wall clock as it reads now (an hour ahead of this process's).
    const wallNow = Date.now() + 3_600_000;
    const api = (await (await fetch(`${exporter!.url}/api/v1/nodes`)).json()) as {
      generatedAt: number;
      nodes: Array<{ name: string; lastCheck: number }>;
    };
    expect(Math.abs(api.generatedAt - wallNow)).toBeLessThan(2_000);
    expect(Math.abs(api.nodes.find((n) => n.name === 'ft-1')!.lastCheck - wallNow)).toBeLessThan(2_000);
    const metrics = await (await fetch(`${exporter!.url}/metrics`)).text();
    const lastOk = metrics.match(/^ledger_probe_last_success_timestamp_seconds\{node="ft-1"[^}]*\} (\S+)$/m)?.[1];
    expect(Math.abs(Number(lastOk) * 1000 - wallNow)).toBeLessThan(2_000);
  }, 60_000);
});
