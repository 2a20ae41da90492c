// A receiver whose secret file cannot be read when the exporter starts: its notifications count
// as failed (so LedgerExporterNotificationsFailing can name it) and stay due, and once the file
// appears the receiver is built again without a reload and the page goes out.
import type { Server } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
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
} from '../../support/alertingDaemon.js';

const NODE = 'ur-1';

describe('a receiver whose secret is missing at start-up', () => {
  let dir = '';
  let fleet: SimFleet;
  let daemon: Daemon;
  let hook: Server;
  let hookUrl = '';
  let log: () => string = () => '';
  const posts: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'lfe-unusable-receiver-'));
    fleet = await SimFleet.start([{ name: NODE, network: 'ur', build: 'current', peers: 5 }], {
      host: '127.0.0.1',
      layout: 'port-per-node',
      blockTimeMs: 500,
    });
    ({ server: hook, url: hookUrl } = await startWebhook((body) => void posts.push(JSON.stringify(body))));
    const alerting: AlertingSettings = {
      stateDir: path.join(dir, 'state'),
      evaluationIntervalMs: 250,
      runbookBase: 'https://git.example.org/lfe/alerts/RUNBOOKS.md',
      rules: onlyRules({ LedgerNodeDown: { enabled: true, forMs: 500, keepFiringForMs: 0 } }),
      routing: {
        groupBy: ['alertname'],
        groupWaitMs: 200,
        groupIntervalMs: 1000,
        repeatIntervalMs: 3_600_000,
        sendResolved: true,
        routes: [],
        receivers: ['slack'],
      },
      receivers: [{ name: 'slack', kind: 'slack', webhookUrl: { file: path.join(dir, 'slack-url') }, timeoutMs: 5000 }],
      maintenance: [],
    };
    const config = alertingFleetConfig(fleet.nodes, {
      dir,
      network: 'ur',
      intervalMs: 300,
      timeoutMs: 250,
      concurrency: 4,
      maxUpstreamSeries: 500,
      alerting,
    });
    ({ daemon, log } = await startAlertingDaemon(config));
  }, 60_000);

  afterAll(() => closeAlertingRig({ daemon, fleet, receiver: hook, dir }));

  const failures = async () => {
    const text = await (await fetch(`${daemon.url}/metrics`)).text();
    return Number(
      /^ledger_alert_notifications_total\{receiver="slack",result="failure"\} (\d+)$/m.exec(text)?.[1] ?? 0,
    );
  };

  it(
    'counts its notifications as failed, keeps them due, and sends once the secret can be read',
    { timeout: 60_000 },
    async () => {
      await waitFor('first poll round', () => (daemon.ready() ? true : undefined), {
        timeoutMs: 20_000,
        intervalMs: 50,
      });
      expect(log()).toMatch(/cannot read receiver slack webhook URL from .*slack-url \(ENOENT\)/);
      await fleet.node(NODE).kill();
      await waitFor('a failed notification', async () => ((await failures()) >= 1 ? true : undefined), {
        timeoutMs: 20_000,
        intervalMs: 100,
      });
      expect(log()).toMatch(/notification failed: receiver not usable: cannot read receiver slack webhook URL/);
      expect(posts).toEqual([]);
      writeFileSync(path.join(dir, 'slack-url'), `${hookUrl}\n`);
      await waitFor('the page, once the secret is there', () => (posts.length > 0 ? true : undefined), {
        timeoutMs: 20_000,
        intervalMs: 100,
      });
      expect(posts[0]).toContain(NODE);
      expect(log()).toContain('receiver usable again');
      expect(log()).not.toContain(hookUrl);
    },
  );
});
