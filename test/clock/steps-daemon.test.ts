// Wall-clock steps against the real daemon in this process: Date.now is stepped (what NTP, a VM
// resume or a hand-set clock does), the monotonic clock runs on. Polling keeps its pace, a
// pending alert does not fire early, nodes are not taken for restarted, and the step is logged
// once and counted. The simulated nodes run on the monotonic clock, as real nodes' uptimes do.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Daemon } from '../../src/daemon/index.js';
import { SimFleet } from '../../src/sim/index.js';
import { waitFor } from '../support/processes.js';
import {
  alertingFleetConfig,
  closeAlertingRig,
  nodeDownToWebhook,
  onlyRules,
  startAlertingDaemon,
  startWebhook,
  type Notified,
} from '../support/alertingDaemon.js';

const NETWORK = 'clk';
const VICTIM = 'clk-2';
const realNow = Date.now.bind(Date);
const monoNow = () => performance.timeOrigin + performance.now();
let offset = 0;

/** Steps the wall clock by `ms` from now on (accumulating; Date.now is replaced before anything reads it). */
function stepWallClock(ms: number): void {
  offset += ms;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const metric = async (url: string, name: string) => {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
};

describe('wall-clock steps', () => {
  const rig: { dir?: string; fleet?: SimFleet; daemon?: Daemon; receiver?: import('node:http').Server } = {};
  let log: () => string = () => '';
  const notified: Notified[] = [];

  beforeAll(async () => {
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + offset);
    rig.dir = mkdtempSync(path.join(tmpdir(), 'lfe-clock-steps-'));
    rig.fleet = await SimFleet.start(
      ['clk-1', VICTIM].map((name) => ({ name, network: NETWORK, build: 'current' as const, peers: 5 })),
      { host: '127.0.0.1', layout: 'port-per-node', blockTimeMs: 500, now: monoNow },
    );
    const hook = await startWebhook(
      (b) =>
        void notified.push({
          at: monoNow(),
          status: b.status ?? '',
          nodes: (b.alerts ?? []).map((a) => a.labels.node ?? ''),
        }),
    );
    rig.receiver = hook.server;
    const alerting = {
      ...nodeDownToWebhook(rig.dir, hook.url),
      rules: onlyRules({ LedgerNodeDown: { enabled: true, forMs: 60_000, keepFiringForMs: 0 } }),
    };
    const config = alertingFleetConfig(rig.fleet.nodes, {
      dir: rig.dir,
      network: NETWORK,
      intervalMs: 250,
      timeoutMs: 200,
      concurrency: 4,
      maxUpstreamSeries: 100,
      alerting,
    });
    const started = await startAlertingDaemon(config);
    rig.daemon = started.daemon;
    log = started.log;
    await waitFor('the first poll round', async () => rig.daemon!.ready() || undefined, { timeoutMs: 10_000 });
  }, 30_000);

  afterAll(async () => {
    await closeAlertingRig(rig);
    vi.restoreAllMocks();
  });

  it('a backward step of 10 minutes keeps polling at its pace, is logged once and counted', async () => {
    const node = rig.fleet!.node('clk-1');
    stepWallClock(-10 * 60_000);
    const before = node.requestCount();
    await sleep(3_000);
    // 250 ms interval, two probes per poll: ~24 requests in 3 s; the old scheduler waited 10 minutes.
    expect(node.requestCount() - before).toBeGreaterThanOrEqual(12);
    expect(await metric(rig.daemon!.url, 'ledger_exporter_clock_steps_total')).toBe(1);
    expect(log().match(/wall clock stepped -600\.\d s/g)).toHaveLength(1);
  }, 20_000);

  it('a forward step of an hour neither fires a pending alert nor takes nodes for restarted', async () => {
    const restartsBefore = log().match(/restarted or changed build/g)?.length ?? 0;
    await rig.fleet!.node(VICTIM).kill();
    await waitFor(
      'LedgerNodeDown pending',
      async () => {
        const body = (await (await fetch(`${rig.daemon!.url}/api/alerts`)).json()) as {
          alerts: Array<{ name: string; state: string }>;
        };
        return body.alerts.find((a) => a.name === 'LedgerNodeDown' && a.state === 'pending');
      },
      { timeoutMs: 10_000 },
    );
    stepWallClock(3_600_000);
    await sleep(4_000);
    const body = (await (await fetch(`${rig.daemon!.url}/api/alerts`)).json()) as {
      alerts: Array<{ name: string; state: string; activeAt: string }>;
    };
    expect(body.alerts.map((a) => [a.name, a.state])).toEqual([['LedgerNodeDown', 'pending']]);
    expect(notified).toEqual([]);
    // Shown on the stepped wall clock: the alert began seconds ago by the clock as it reads now.
    expect(Date.now() - Date.parse(body.alerts[0]!.activeAt)).toBeLessThan(15_000);
    expect(log().match(/restarted or changed build/g)?.length ?? 0).toBe(restartsBefore);
    expect(await metric(rig.daemon!.url, 'ledger_exporter_clock_steps_total')).toBe(2);
  }, 30_000);
});
