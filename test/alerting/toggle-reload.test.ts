// Reloads that take the alerting section away and give it back while the first is still shutting
// alerting down (a notification in flight holds the drain): the second waits for the first, so
// alerting ends on, as the config says. Real daemon, simulated node, loopback receiver.
import type { Server } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertingComponent } from '../../src/alerting/component.js';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import type { ExporterConfig } from '../../src/config/exporterConfig.js';
import { createLogger } from '../../src/logger.js';
import { SimFleet } from '../../src/sim/index.js';
import { alertingFleetConfig, closeAlertingRig, nodeDownToWebhook, startWebhook } from '../support/alertingDaemon.js';
import { waitFor } from '../support/processes.js';

const NODE = 'tg-1';
const HOLD_MS = 1500;

describe('alerting taken away and given back by two reloads', () => {
  let dir = '';
  let fleet: SimFleet;
  let daemon: Daemon;
  let hook: Server;
  let config: ExporterConfig;
  let answered = 0;
  let onFirstPost: (() => void) | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'lfe-alerting-toggle-'));
    fleet = await SimFleet.start([{ name: NODE, network: 'tg', build: 'current', peers: 5 }], {
      host: '127.0.0.1',
      layout: 'port-per-node',
      blockTimeMs: 500,
    });
    let url: string;
    ({ server: hook, url } = await startWebhook(() => {
      // The first notification is answered late: shutting alerting down waits for it.
      const first = ++answered === 1;
      if (first) onFirstPost?.();
      return first ? HOLD_MS : 0;
    }));
    const alerting = nodeDownToWebhook(dir, url);
    config = alertingFleetConfig(fleet.nodes, {
      dir,
      network: 'tg',
      intervalMs: 300,
      timeoutMs: 250,
      concurrency: 4,
      maxUpstreamSeries: 500,
      alerting,
    });
    daemon = await startDaemon(config, {
      logger: createLogger({ level: 'silent' }),
      defaultMetrics: false,
      components: [alertingComponent()],
    });
  }, 60_000);

  afterAll(() => closeAlertingRig({ daemon, fleet, receiver: hook, dir }));

  const alertsApi = async () =>
    (await (await fetch(`${daemon.url}/api/alerts`)).json()) as {
      enabled: boolean;
      alerts: Array<{ name: string; state: string }>;
    };

  it('ends with alerting on, evaluating again', { timeout: 60_000 }, async () => {
    await waitFor('first poll round', () => (daemon.ready() ? true : undefined), { timeoutMs: 20_000, intervalMs: 50 });
    const inFlight = new Promise<void>((r) => (onFirstPost = r));
    await fleet.node(NODE).kill();
    await inFlight;
    const { alerting: _taken, ...without } = config;
    daemon.applyConfig(without);
    daemon.applyConfig(config);
    // Past the held answer, so the first reload's shutdown is over: until then the alerting being
    // shut down still answers, whatever comes next.
    await new Promise((r) => setTimeout(r, HOLD_MS + 500));
    const after = await waitFor(
      'alerting on again with the node down firing',
      async () => {
        const api = await alertsApi();
        return api.enabled && api.alerts.some((a) => a.name === 'LedgerNodeDown' && a.state === 'firing')
          ? api
          : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    expect(after.enabled).toBe(true);
  });
});
