// End to end without Prometheus, all on loopback: simulated fleet -> exporter with the built-in
// alerting -> its `alertmanager` receiver -> Debian's prometheus-alertmanager -> a webhook in this
// test. The alert must appear in Alertmanager's own API, reach the webhook, and resolve there.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertingComponent } from '../../src/alerting/component.js';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import { createLogger } from '../../src/logger.js';
import { SimFleet } from '../../src/sim/index.js';
import { startAlertmanager, startWebhookSink, type WebhookMessage } from '../support/alertmanager.js';
import { checkTools, requireTool } from '../support/prometheus-tools.js';
import { getJson, waitFor, type ManagedProcess } from '../support/processes.js';
import { alertingFleetConfig, onlyRules } from '../support/alertingDaemon.js';

const tools = checkTools(['prometheus-alertmanager']);
const NETWORK = 'amx';
const VICTIM = 'amx-2';
const WAIT_MS = 45_000;
const AM_TOKEN = 'am-bearer-token-canary-31';

describe.skipIf(tools.skip)(`built-in alerting to Debian prometheus-alertmanager${tools.skipNote}`, () => {
  let dir = '';
  let fleet: SimFleet | undefined;
  let daemon: Daemon | undefined;
  let receiver: Awaited<ReturnType<typeof startWebhookSink>> | undefined;
  let received: WebhookMessage[] = [];
  const children: ManagedProcess[] = [];
  let amUrl = '';
  const childOutput = () => children.map((c) => `--- ${c.name} ---\n${c.output()}`).join('\n');

  beforeAll(async () => {
    const alertmanager = requireTool(tools, 'prometheus-alertmanager');
    dir = mkdtempSync(path.join(tmpdir(), 'lfe-e2e-builtin-am-'));
    fleet = await SimFleet.start(
      ['amx-1', VICTIM, 'amx-3'].map((name) => ({ name, network: NETWORK, build: 'current' as const, peers: 5 })),
      { host: '127.0.0.1', layout: 'port-per-node', blockTimeMs: 500 },
    );
    receiver = await startWebhookSink();
    received = receiver.received;
    const hookUrl = receiver.url;

    const am = await startAlertmanager(alertmanager, dir, hookUrl);
    amUrl = am.url;
    children.push(am.process);
    await waitFor(`${amUrl}/-/ready`, async () => ((await fetch(`${amUrl}/-/ready`)).ok ? true : undefined), {
      timeoutMs: WAIT_MS,
      context: childOutput,
    });

    const config = alertingFleetConfig(fleet.nodes, {
      dir,
      network: NETWORK,
      intervalMs: 500,
      timeoutMs: 400,
      concurrency: 16,
      maxUpstreamSeries: 500,
      alerting: {
        stateDir: path.join(dir, 'state'),
        evaluationIntervalMs: 250,
        runbookBase: 'alerts/RUNBOOKS.md',
        rules: onlyRules({ LedgerNodeDown: { enabled: true, forMs: 1000, keepFiringForMs: 0 } }),
        routing: {
          groupBy: ['alertname', 'network'],
          groupWaitMs: 0,
          groupIntervalMs: 1000,
          repeatIntervalMs: 3_600_000,
          sendResolved: true,
          routes: [],
          receivers: ['am'],
        },
        receivers: [
          { name: 'am', kind: 'alertmanager', urls: [amUrl], bearerToken: { value: AM_TOKEN }, timeoutMs: 2000 },
        ],
        maintenance: [],
      },
    });
    daemon = await startDaemon(config, {
      logger: createLogger({ level: 'silent' }),
      defaultMetrics: false,
      components: [alertingComponent()],
    });
  }, 2 * WAIT_MS);

  afterAll(async () => {
    await Promise.allSettled(children.map((c) => c.stop()));
    await Promise.allSettled([daemon?.close(1_000), fleet?.close(), receiver?.close()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  type AmAlert = {
    labels: Record<string, string>;
    annotations: Record<string, string>;
    status: { state: string };
    endsAt: string;
  };
  const amAlerts = async () => getJson<AmAlert[]>(`${amUrl}/api/v2/alerts?active=true`);
  const ours = <A extends { labels: Record<string, string> }>(list: A[]) =>
    list.find((a) => a.labels.alertname === 'LedgerNodeDown' && a.labels.node === VICTIM);

  it(
    'a killed node appears in Alertmanager and reaches its webhook; the revival resolves it there',
    { timeout: 4 * WAIT_MS },
    async () => {
      await waitFor('first poll round', () => (daemon!.ready() ? true : undefined), { timeoutMs: WAIT_MS });
      expect(ours(await amAlerts())).toBeUndefined();
      await fleet!.node(VICTIM).kill();

      const inAm = await waitFor('LedgerNodeDown in Alertmanager', async () => ours(await amAlerts()), {
        timeoutMs: WAIT_MS,
        context: childOutput,
      });
      expect(inAm.labels).toEqual({
        alertname: 'LedgerNodeDown',
        severity: 'critical',
        node: VICTIM,
        network: NETWORK,
      });
      expect(inAm.status.state).toBe('active');
      expect(inAm.annotations.summary).toBe(`Ledger node ${VICTIM} (${NETWORK}) is down`);
      // Pushed as Prometheus does: valid for about 4 minutes unless re-sent.
      const validFor = Date.parse(inAm.endsAt) - Date.now();
      expect(validFor).toBeGreaterThan(3 * 60_000);
      expect(validFor).toBeLessThanOrEqual(4 * 60_000 + 5_000);

      const firing = await waitFor(
        'firing at the webhook',
        () => received.find((m) => m.status === 'firing' && ours(m.alerts)),
        { timeoutMs: WAIT_MS, context: childOutput },
      );
      expect(ours(firing.alerts)!.annotations.runbook_url).toBe('alerts/RUNBOOKS.md#ledgernodedown');

      await fleet!.node(VICTIM).revive();
      await waitFor('resolved at the webhook', () => received.find((m) => m.status === 'resolved' && ours(m.alerts)), {
        timeoutMs: WAIT_MS,
        context: childOutput,
      });
      await waitFor('gone from the active alerts', async () => (ours(await amAlerts()) ? undefined : true), {
        timeoutMs: WAIT_MS,
      });
    },
  );
});
