// End to end on loopback with the real daemon: a maintenance window over a simulated node holds
// its page (the alert is still evaluated and listed, with the window's name), an alert that
// resolves inside the window is never sent, and the one still firing when the window ends is
// sent then, once. A node outside the window pages at once.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertingSettings } from '../../../src/alerting/settings.js';
import type { Daemon } from '../../../src/daemon/index.js';
import { SimFleet } from '../../../src/sim/index.js';
import { waitFor } from '../../support/processes.js';
import {
  alertingFleetConfig,
  closeAlertingRig,
  onlyRules,
  startAlertingDaemon,
  startWebhook,
  type Notified,
} from '../../support/alertingDaemon.js';

const NETWORK = 'mnt';
const WINDOW = 'disk-swap';
const WAIT = 20_000;

interface Listed {
  name: string;
  labels: Record<string, string>;
  state: string;
  silencedBy?: string;
}

describe('maintenance window in the daemon', () => {
  let dir = '';
  let fleet: SimFleet;
  let daemon: Daemon;
  let hook: Server;
  let windowEnd = 0;
  const pages: Notified[] = [];
  let log: () => string = () => '';

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'lfe-maint-e2e-'));
    fleet = await SimFleet.start(
      ['mnt-ok', 'mnt-swap', 'mnt-blip', 'mnt-out'].map((name) => ({
        name,
        network: NETWORK,
        build: 'current' as const,
      })),
      { host: '127.0.0.1', layout: 'port-per-node', blockTimeMs: 500 },
    );
    let hookUrl: string;
    ({ server: hook, url: hookUrl } = await startWebhook((body) => {
      for (const a of body.alerts ?? []) pages.push({ at: Date.now(), status: a.status, nodes: [a.labels.node ?? ''] });
    }));
    // A port nobody listens on, for a receiver that fails its start-up check.
    const probe = createServer().listen(0, '127.0.0.1');
    await new Promise((r) => probe.once('listening', r));
    const closedPort = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));

    // The window covers two nodes from now for 14 s: long enough to fire, list and resolve inside it.
    windowEnd = Date.now() + 14_000;
    const settings: AlertingSettings = {
      stateDir: path.join(dir, 'state'),
      evaluationIntervalMs: 250,
      runbookBase: 'alerts/RUNBOOKS.md',
      rules: onlyRules({ LedgerNodeDown: { enabled: true, forMs: 1000, keepFiringForMs: 0 } }),
      routing: {
        groupBy: ['alertname', 'node'],
        groupWaitMs: 200,
        groupIntervalMs: 500,
        repeatIntervalMs: 3_600_000,
        sendResolved: true,
        routes: [],
        receivers: ['hook'],
      },
      receivers: [
        { name: 'hook', kind: 'webhook', url: hookUrl, headers: {}, timeoutMs: 1000 },
        {
          name: 'am-down',
          kind: 'alertmanager',
          urls: [`http://127.0.0.1:${closedPort}`],
          bearerToken: { value: 'am-token-canary-4410' },
          timeoutMs: 1000,
        },
      ],
      maintenance: [
        { name: WINDOW, startMs: Date.now() - 1000, endMs: windowEnd, match: { node: '~mnt-(swap|blip)' } },
      ],
    };
    const config = alertingFleetConfig(fleet.nodes, {
      dir,
      network: NETWORK,
      intervalMs: 300,
      timeoutMs: 250,
      concurrency: 8,
      maxUpstreamSeries: 100,
      alerting: settings,
    });
    ({ daemon, log } = await startAlertingDaemon(config));
  }, 60_000);

  afterAll(() => closeAlertingRig({ daemon, fleet, receiver: hook, dir }));

  const listed = async () => ((await (await fetch(`${daemon.url}/api/alerts`)).json()) as { alerts: Listed[] }).alerts;
  const pagesFor = (node: string) => pages.filter((p) => p.nodes.includes(node));

  it(
    'holds the page while the window lasts, drops the one resolved inside it, sends the rest once when it ends',
    { timeout: 4 * WAIT },
    async () => {
      await waitFor('first poll round', () => (daemon.ready() ? true : undefined), { timeoutMs: WAIT });
      expect(await (await fetch(`${daemon.url}/metrics`)).text()).toContain(
        `ledger_alert_maintenance_active{name="${WINDOW}"} 1`,
      );
      await Promise.all(['mnt-swap', 'mnt-blip', 'mnt-out'].map((n) => fleet.node(n).kill()));

      // Evaluated and listed, with the window's name, while nothing is sent for them.
      const firing = await waitFor(
        'three firing alerts',
        async () => {
          const a = (await listed()).filter((x) => x.state === 'firing');
          return a.length === 3 ? a : undefined;
        },
        { timeoutMs: WAIT },
      );
      const byNode = Object.fromEntries(firing.map((a) => [a.labels.node, a.silencedBy]));
      expect(byNode).toEqual({ 'mnt-swap': WINDOW, 'mnt-blip': WINDOW, 'mnt-out': undefined });
      await waitFor('the node outside the window pages', () => (pagesFor('mnt-out').length > 0 ? true : undefined), {
        timeoutMs: WAIT,
      });

      // mnt-blip recovers inside the window: its alert resolves and is never sent.
      await fleet.node('mnt-blip').revive();
      await waitFor(
        'mnt-blip resolved',
        async () => ((await listed()).some((a) => a.labels.node === 'mnt-blip') ? undefined : true),
        { timeoutMs: WAIT },
      );
      expect(Date.now()).toBeLessThan(windowEnd); // the scenario really happened inside the window
      expect(pagesFor('mnt-swap')).toEqual([]);

      // The window ends: mnt-swap, still down, is sent then, as a new firing alert.
      await waitFor('mnt-swap paged after the window', () => (pagesFor('mnt-swap').length > 0 ? true : undefined), {
        timeoutMs: WAIT,
      });
      const swap = pagesFor('mnt-swap');
      expect(swap[0]!.at).toBeGreaterThanOrEqual(windowEnd);
      expect(swap[0]!.status).toBe('firing');
      expect((await listed()).find((a) => a.labels.node === 'mnt-swap')?.silencedBy).toBeUndefined();
      expect(await (await fetch(`${daemon.url}/metrics`)).text()).toContain(
        `ledger_alert_maintenance_active{name="${WINDOW}"} 0`,
      );

      // Once: nothing more for it within the repeat interval; nothing ever for mnt-blip.
      await new Promise((r) => setTimeout(r, 1500));
      expect(pagesFor('mnt-swap')).toHaveLength(1);
      expect(pagesFor('mnt-blip')).toEqual([]);
      expect(log()).toContain('maintenance window ended');
      // The start-up dry check named the unreachable receiver once, without its token; the good one passed.
      expect(
        log().match(/receiver am-down failed its start-up check: alertmanager am-down url #1: unreachable/g),
      ).toHaveLength(1);
      expect(log()).not.toContain('receiver hook failed');
      expect(log()).not.toContain('am-token-canary-4410');
    },
  );
});
