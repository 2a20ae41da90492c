// The built-in alerting inside the real daemon, on loopback: simulated nodes -> exporter ->
// fake Slack, PagerDuty and webhook servers. A killed node pages once per receiver and resolves;
// receivers that fail, rate-limit, hang or drop the connection never hold up polling.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertingComponent, type AlertingComponent } from '../../src/alerting/component.js';
import type { AlertingSettings } from '../../src/alerting/settings.js';
import type { Daemon } from '../../src/daemon/index.js';
import { SimFleet } from '../../src/sim/index.js';
import { waitFor } from '../support/processes.js';
import {
  alertingFleetConfig,
  closeAlertingRig,
  deliveriesLogged,
  onlyRules,
  startAlertingDaemon,
} from '../support/alertingDaemon.js';

const NETWORK = 'alrt';
const VICTIM = 'alrt-2';
const SLACK_SECRET = 'T0ALRT/B0ALRT/slackSecretPath9';
const PD_KEY = 'pd-routing-key-canary-77';
const HOOK_AUTH = 'Token hook-auth-canary-55';
const WAIT = 20_000;

type Behaviour = 'ok' | '500' | '429' | 'hang' | 'close';
interface Received {
  at: number;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

describe('built-in alerting in the daemon', () => {
  let dir = '';
  let fleet: SimFleet;
  let daemon: Daemon;
  let alerting: AlertingComponent;
  let receiver: Server;
  let base = '';
  const received: Received[] = [];
  const behaviour: Record<string, Behaviour> = { '/slack': 'ok', '/pd': 'ok', '/hook': 'ok' };
  let log: () => string = () => '';

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'lfe-alerting-daemon-'));
    fleet = await SimFleet.start(
      ['alrt-1', VICTIM, 'alrt-3'].map((name) => ({ name, network: NETWORK, build: 'current' as const, peers: 5 })),
      { host: '127.0.0.1', layout: 'port-per-node', blockTimeMs: 500 },
    );
    receiver = createServer((req, res) => {
      let text = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (text += c));
      req.on('end', () => {
        const key = `/${(req.url ?? '').split('/')[1]}`;
        const mode = behaviour[key] ?? 'ok';
        received.push({
          at: Date.now(),
          path: req.url ?? '',
          headers: req.headers,
          body: JSON.parse(text || '{}') as Record<string, unknown>,
        });
        if (mode === 'hang') return; // never answers: the client's deadline ends it
        if (mode === 'close') return req.socket.destroy();
        if (mode === '500') return res.writeHead(500).end('boom');
        if (mode === '429') return res.writeHead(429, { 'retry-after': '1' }).end();
        res.writeHead(key === '/pd' ? 202 : 200, { 'content-type': 'application/json' }).end('{"status":"success"}');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

    const settings: AlertingSettings = {
      stateDir: path.join(dir, 'state'),
      evaluationIntervalMs: 250,
      runbookBase: 'https://git.example.org/lfe/alerts/RUNBOOKS.md',
      rules: onlyRules({ LedgerNodeDown: { enabled: true, forMs: 1000, keepFiringForMs: 0 } }),
      routing: {
        groupBy: ['alertname', 'network'],
        groupWaitMs: 300,
        groupIntervalMs: 1000,
        repeatIntervalMs: 3_600_000,
        sendResolved: true,
        routes: [],
        receivers: ['slack', 'pager', 'hook'],
      },
      receivers: [
        {
          name: 'slack',
          kind: 'slack',
          webhookUrl: { value: `${base}/slack/${SLACK_SECRET}` },
          channel: '#ops',
          timeoutMs: 1000,
        },
        { name: 'pager', kind: 'pagerduty', routingKey: { value: PD_KEY }, url: `${base}/pd`, timeoutMs: 1000 },
        { name: 'hook', kind: 'webhook', url: `${base}/hook`, headers: { authorization: HOOK_AUTH }, timeoutMs: 1000 },
      ],
      maintenance: [],
    };
    const config = alertingFleetConfig(fleet.nodes, {
      dir,
      network: NETWORK,
      intervalMs: 500,
      timeoutMs: 400,
      concurrency: 16,
      maxUpstreamSeries: 500,
      alerting: settings,
    });
    alerting = alertingComponent();
    ({ daemon, log } = await startAlertingDaemon(config, alerting));
  }, 60_000);

  afterAll(() => closeAlertingRig({ daemon, fleet, receiver, dir }));

  const from = (prefix: string, status: string) =>
    received.filter((r) => r.path.startsWith(prefix) && JSON.stringify(r.body).includes(status));
  const delivered = (receiver: string) => deliveriesLogged(log(), receiver);

  it(
    'a killed node pages each receiver once, is listed and counted, and its revival resolves it',
    { timeout: 4 * WAIT },
    async () => {
      await waitFor('first poll round', () => (daemon.ready() ? true : undefined), { timeoutMs: WAIT });
      await fleet.node(VICTIM).kill();
      await waitFor(
        'firing on every receiver, and each answer back at the daemon',
        () =>
          from('/slack', 'FIRING').length &&
          from('/pd', '"trigger"').length &&
          from('/hook', '"firing"').length &&
          // Counted, timed and listed as notified once the answer is back, which can be after the receiver saw it.
          ['slack', 'pager', 'hook'].every((r) => delivered(r) > 0)
            ? true
            : undefined,
        { timeoutMs: WAIT },
      );

      const listed = (await (await fetch(`${daemon.url}/api/alerts`)).json()) as {
        alerts: Array<Record<string, unknown>>;
      };
      expect(listed.alerts).toHaveLength(1);
      expect(listed.alerts[0]).toMatchObject({
        name: 'LedgerNodeDown',
        state: 'firing',
        labels: { node: VICTIM, network: NETWORK, severity: 'critical' },
      });
      expect(listed.alerts[0]!.lastNotifiedAt).toEqual(expect.any(String));

      const hook = from('/hook', '"firing"')[0]!;
      expect(hook.headers.authorization).toBe(HOOK_AUTH);
      expect(hook.body).toMatchObject({
        version: '4',
        status: 'firing',
        receiver: 'hook',
        groupLabels: { alertname: 'LedgerNodeDown', network: NETWORK },
      });
      const pd = from('/pd', '"trigger"')[0]!.body;
      expect(pd).toMatchObject({ routing_key: PD_KEY, event_action: 'trigger' });
      expect(JSON.stringify(from('/slack', 'FIRING')[0]!.body)).toContain(
        'https://git.example.org/lfe/alerts/RUNBOOKS.md#ledgernodedown',
      );

      const metrics = await (await fetch(`${daemon.url}/metrics`)).text();
      expect(metrics).toContain(`ledger_alerts{alertname="LedgerNodeDown",severity="critical",state="firing"} 1`);
      expect(metrics).toMatch(/ledger_alert_notifications_total\{receiver="slack",result="success"\} 1\n/);
      expect(metrics).toMatch(/ledger_alert_notification_queue\{receiver="pager"\} 0/);
      expect(metrics).toMatch(/ledger_alert_notification_duration_seconds_count\{receiver="hook"\} 1/);

      await fleet.node(VICTIM).revive();
      await waitFor(
        'resolved on every receiver',
        () =>
          from('/slack', 'RESOLVED').length && from('/pd', '"resolve"').length && from('/hook', '"resolved"').length
            ? true
            : undefined,
        { timeoutMs: WAIT },
      );
      expect(from('/pd', '"resolve"')[0]!.body.dedup_key).toBe(pd.dedup_key);
      // One firing and one resolved per receiver, nothing repeated.
      expect(['/slack', '/pd', '/hook'].map((p) => received.filter((r) => r.path.startsWith(p)).length)).toEqual([
        2, 2, 2,
      ]);
      // A delivery is logged once its answer is back, which can be after the receiver saw it.
      const sentLines = () => log().match(/"msg":"notification sent"/g)?.length ?? 0;
      await waitFor('every delivery logged', () => (sentLines() >= 6 ? true : undefined), { timeoutMs: WAIT });
      expect(sentLines()).toBe(6);
      for (const secret of [SLACK_SECRET, PD_KEY, HOOK_AUTH, 'hook-auth-canary-55'])
        expect(log()).not.toContain(secret);
    },
  );

  it(
    'receivers answering 500, 429 with Retry-After, hanging or closing the connection never delay polling',
    { timeout: 4 * WAIT },
    async () => {
      received.length = 0;
      Object.assign(behaviour, { '/slack': '500', '/pd': '429', '/hook': 'hang' });
      const healthy = ['alrt-1', 'alrt-3'].map((n) => fleet.node(n));
      const before = healthy.map((n) => n.requestCount());
      const t0 = Date.now();
      await fleet.node(VICTIM).kill();
      await waitFor(
        'retries on every receiver',
        () =>
          received.filter((r) => r.path.startsWith('/slack')).length >= 2 &&
          received.filter((r) => r.path.startsWith('/pd')).length >= 2 &&
          received.some((r) => r.path.startsWith('/hook'))
            ? true
            : undefined,
        { timeoutMs: WAIT },
      );
      behaviour['/hook'] = 'close';
      await waitFor(
        'the hook retried after its connection was closed',
        () => (received.filter((r) => r.path.startsWith('/hook')).length >= 2 ? true : undefined),
        { timeoutMs: WAIT },
      );
      const elapsed = Date.now() - t0;
      // Each node has two probes every 500 ms, run back to back as one task.
      const scheduled = Math.floor(elapsed / 500);
      const actual = healthy.map((n, i) => Math.floor((n.requestCount() - before[i]!) / 2));
      console.log(`polls while receivers misbehaved: scheduled ${scheduled} per node, done ${actual.join(' and ')}`);
      for (const a of actual) expect(a).toBeGreaterThanOrEqual(Math.floor(scheduled * 0.7));
      // 429 with Retry-After: 1 s: the second attempt came no sooner than that.
      const pdTimes = received.filter((r) => r.path.startsWith('/pd')).map((r) => r.at);
      expect(pdTimes[1]! - pdTimes[0]!).toBeGreaterThanOrEqual(950);
      Object.assign(behaviour, { '/slack': 'ok', '/pd': 'ok', '/hook': 'ok' });
      await waitFor(
        'delivered once the receivers recover',
        () => (from('/slack', 'FIRING').length && from('/pd', '"trigger"').length ? true : undefined),
        { timeoutMs: WAIT },
      );
      await fleet.node(VICTIM).revive();
    },
  );
});
