// Silenced alerts routed to every receiver kind wake the main thread no more often than the
// evaluation interval asks: a silenced alert is never "due". Before, an alert a push receiver
// (alertmanager) would skip was still due, and the pump re-armed a 0 ms timer for as long as
// the window lasted.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AlertingSettings } from '../../src/alerting/settings.js';
import type { Daemon } from '../../src/daemon/index.js';
import { SimFleet } from '../../src/sim/index.js';
import { waitFor } from '../support/processes.js';
import { alertingFleetConfig, closeAlertingRig, onlyRules, startAlertingDaemon } from '../support/alertingDaemon.js';

const NETWORK = 'spin';
const DOWN = 7;

describe('silenced alerts and the main thread', () => {
  const rig: { dir?: string; fleet?: SimFleet; daemon?: Daemon; receiver?: Server } = {};
  let posts = 0;

  beforeAll(async () => {
    rig.dir = mkdtempSync(path.join(tmpdir(), 'lfe-silenced-spin-'));
    rig.fleet = await SimFleet.start(
      Array.from({ length: DOWN + 1 }, (_, i) => ({
        name: `spin-${i}`,
        network: NETWORK,
        build: 'current' as const,
        peers: 5,
      })),
      { host: '127.0.0.1', layout: 'port-per-node', blockTimeMs: 500 },
    );
    rig.receiver = createServer((req, res) => {
      if (req.method === 'POST') posts++;
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    });
    await new Promise<void>((r) => rig.receiver!.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(rig.receiver.address() as AddressInfo).port}`;
    const alerting: AlertingSettings = {
      stateDir: path.join(rig.dir, 'state'),
      evaluationIntervalMs: 500,
      runbookBase: 'https://git.example.org/lfe/alerts/RUNBOOKS.md',
      rules: onlyRules({ LedgerNodeDown: { enabled: true, forMs: 0, keepFiringForMs: 0 } }),
      routing: {
        groupBy: ['node'],
        groupWaitMs: 0,
        groupIntervalMs: 1000,
        repeatIntervalMs: 3_600_000,
        sendResolved: true,
        routes: [],
        receivers: ['hook', 'slack', 'pd', 'am'],
      },
      receivers: [
        { name: 'hook', kind: 'webhook', url: `${base}/hook`, headers: {}, timeoutMs: 2000 },
        { name: 'slack', kind: 'slack', webhookUrl: { value: `${base}/services/T0/B0/spinslack` }, timeoutMs: 2000 },
        {
          name: 'pd',
          kind: 'pagerduty',
          routingKey: { value: 'spin-routing-key' },
          url: `${base}/pd`,
          timeoutMs: 2000,
        },
        { name: 'am', kind: 'alertmanager', urls: [base], timeoutMs: 2000 },
      ],
      maintenance: [
        { name: 'all-day', startMs: Date.now() - 60_000, endMs: Date.now() + 3_600_000, match: { network: NETWORK } },
      ],
    };
    const config = alertingFleetConfig(rig.fleet.nodes, {
      dir: rig.dir,
      network: NETWORK,
      intervalMs: 250,
      timeoutMs: 200,
      concurrency: 8,
      maxUpstreamSeries: 100,
      alerting,
    });
    rig.daemon = (await startAlertingDaemon(config)).daemon;
    await waitFor('the first poll round', async () => rig.daemon!.ready() || undefined, { timeoutMs: 10_000 });
  }, 30_000);

  afterAll(async () => {
    vi.restoreAllMocks();
    await closeAlertingRig(rig);
  });

  it('arms no zero-delay timers while the window mutes every alert', async () => {
    for (let i = 1; i <= DOWN; i++) await rig.fleet!.node(`spin-${i}`).kill();
    await waitFor(
      'the silenced alerts',
      async () => {
        const body = (await (await fetch(`${rig.daemon!.url}/api/alerts`)).json()) as {
          alerts: Array<{ state: string; silencedBy?: string }>;
        };
        return (
          body.alerts.filter((a) => a.state === 'firing' && a.silencedBy === 'all-day').length === DOWN || undefined
        );
      },
      { timeoutMs: 10_000 },
    );
    const real = globalThis.setTimeout;
    let soon = 0;
    vi.spyOn(globalThis, 'setTimeout').mockImplementation((fn: () => void, ms?: number, ...args: unknown[]) => {
      if ((ms ?? 0) < 5) soon++;
      return real(fn, ms, ...(args as []));
    });
    await new Promise((r) => real(r, 3_000));
    vi.restoreAllMocks();
    // Polling 8 nodes every 250 ms and evaluating every 500 ms arm some short timers; a spin arms thousands.
    expect(soon).toBeLessThan(200);
    expect(posts).toBe(0);
  }, 30_000);
});
