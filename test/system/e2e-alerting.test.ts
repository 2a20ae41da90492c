// End to end with the real programs, all on loopback: simulated fleet -> exporter -> Debian's
// prometheus (our rules, `for` shortened) -> Debian's prometheus-alertmanager -> a webhook
// receiver in this test. Killing a node must fire LedgerNodeDown all the way to the receiver,
// and reviving it must deliver the resolved notification.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import type { ExporterConfig } from '../../src/config/exporterConfig.js';
import { createLogger } from '../../src/logger.js';
import { SimFleet } from '../../src/sim/index.js';
import { loadRuleFile, shortenedRules, RECORDING_FILE } from '../support/alert-rules.js';
import { startAlertmanager } from '../support/alertmanager.js';
import { checkTools, requireTool } from '../support/prometheus-tools.js';
import { getJson, waitFor, type ManagedProcess } from '../support/processes.js';
import { startPrometheus } from '../support/prometheus.js';

const tools = checkTools(['prometheus', 'prometheus-alertmanager']);
const JOB = 'ledger-fleet-exporter';
const NETWORK = 'e2e';
const VICTIM = 'e2e-val-2';
const WAIT_MS = 45_000;

/** One webhook payload of Alertmanager (version 4). */
interface WebhookMessage {
  status: 'firing' | 'resolved';
  alerts: { status: 'firing' | 'resolved'; labels: Record<string, string>; annotations: Record<string, string> }[];
}

interface PromAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: string;
}

describe.skipIf(tools.skip)(`alerting end to end with Debian prometheus and alertmanager${tools.skipNote}`, () => {
  let dir = '';
  let fleet: SimFleet | undefined;
  let daemon: Daemon | undefined;
  let receiver: Server | undefined;
  let receiverUrl = '';
  const received: WebhookMessage[] = [];
  const children: ManagedProcess[] = [];
  let promUrl = '';
  let amUrl = '';

  const childOutput = () => children.map((c) => `--- ${c.name} (last output) ---\n${c.output()}`).join('\n');

  beforeAll(async () => {
    const prometheus = requireTool(tools, 'prometheus');
    const alertmanager = requireTool(tools, 'prometheus-alertmanager');
    dir = mkdtempSync(path.join(tmpdir(), 'lfe-e2e-alerting-'));

    fleet = await SimFleet.start(
      ['e2e-val-1', VICTIM, 'e2e-val-3'].map((name) => ({
        name,
        network: NETWORK,
        build: 'current' as const,
        peers: 5,
      })),
      { host: '127.0.0.1', layout: 'port-per-node', blockTimeMs: 500 },
    );

    const config: ExporterConfig = {
      listen: { host: '127.0.0.1', port: 0 },
      polling: { concurrency: 16, maxResponseBytes: 1024 * 1024, maxUpstreamSeries: 500 },
      nodes: fleet.nodes.map((n) => ({
        name: n.name,
        url: n.url,
        network: NETWORK,
        labels: {},
        intervalMs: 500,
        timeoutMs: 400,
        rpcNamespace: 'auto',
        probes: ['health', 'blockNumber'],
        headers: {},
      })),
      networks: {},
      evidence: { dir: path.join(dir, 'evidence'), maxBytes: 1024 * 1024, maxAgeDays: 1 },
    };
    daemon = await startDaemon(config, { logger: createLogger({ level: 'silent' }), defaultMetrics: false });

    receiver = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        try {
          received.push(JSON.parse(body) as WebhookMessage);
        } catch {
          /* not a webhook payload: ignored, the test waits for real ones */
        }
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver!.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

    const am = await startAlertmanager(alertmanager, dir, receiverUrl);
    amUrl = am.url;
    children.push(am.process);

    // Prometheus with our rules; only `for`/`keep_firing_for` are shortened (unit tests cover the real ones).
    writeFileSync(path.join(dir, 'rules.yml'), shortenedRules(loadRuleFile(), { for: '2s', keepFiringFor: '1s' }));
    const prom = await startPrometheus(prometheus, dir, {
      job: JOB,
      targets: [new URL(daemon.url).host],
      ruleFiles: [RECORDING_FILE, path.join(dir, 'rules.yml')],
      alertmanagers: [new URL(am.url).host],
    });
    promUrl = prom.url;
    children.push(prom.process);

    for (const url of [amUrl, promUrl]) {
      await waitFor(`${url}/-/ready`, async () => ((await fetch(`${url}/-/ready`)).ok ? true : undefined), {
        timeoutMs: WAIT_MS,
        context: childOutput,
      });
    }
  });

  afterAll(async () => {
    // Every step runs even when an earlier one fails, so no child or socket outlives the test.
    await Promise.allSettled(children.map((c) => c.stop()));
    await Promise.allSettled([
      daemon?.close(1_000),
      fleet?.close(),
      receiver ? new Promise<void>((resolve) => receiver!.close(() => resolve())) : undefined,
    ]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const promQuery = async (expr: string) => {
    const body = await getJson<{ data: { result: { metric: Record<string, string>; value: [number, string] }[] } }>(
      `${promUrl}/api/v1/query?query=${encodeURIComponent(expr)}`,
    );
    return body.data.result;
  };
  const promAlerts = async () =>
    (await getJson<{ data: { alerts: PromAlert[] } }>(`${promUrl}/api/v1/alerts`)).data.alerts;
  const nodeDownFor = <A extends { labels: Record<string, string> }>(alerts: A[]): A | undefined =>
    alerts.find((a) => a.labels.alertname === 'LedgerNodeDown' && a.labels.node === VICTIM);

  it(
    'a killed node fires LedgerNodeDown to the receiver, and its revival resolves it',
    { timeout: 4 * WAIT_MS },
    async () => {
      // The whole fleet is scraped and up before anything breaks.
      await waitFor(
        'all three nodes up in Prometheus',
        async () =>
          (await promQuery(`ledger_node_up{job="${JOB}", network="${NETWORK}"} == 1`)).length === 3 ? true : undefined,
        { timeoutMs: WAIT_MS, context: childOutput },
      );
      expect(nodeDownFor(await promAlerts())).toBeUndefined();

      await fleet!.node(VICTIM).kill();

      const firing = await waitFor(
        'LedgerNodeDown firing in Prometheus',
        async () => {
          const alert = nodeDownFor(await promAlerts());
          return alert?.state === 'firing' ? alert : undefined;
        },
        { timeoutMs: WAIT_MS, context: childOutput },
      );
      // Only the node's identity: the labels the built-in engine gives it, nothing of the scrape target.
      expect(firing.labels).toEqual({
        alertname: 'LedgerNodeDown',
        severity: 'critical',
        node: VICTIM,
        network: NETWORK,
      });
      expect(firing.annotations.runbook_url).toMatch(/RUNBOOKS\.md#ledgernodedown$/);
      expect(firing.annotations.summary).toContain(VICTIM);
      // The healthy nodes stay quiet.
      expect(
        (await promAlerts()).filter((a) => a.labels.alertname === 'LedgerNodeDown').map((a) => a.labels.node),
      ).toEqual([VICTIM]);

      const notified = await waitFor(
        'a firing LedgerNodeDown notification at the webhook receiver',
        () => received.map((m) => nodeDownFor(m.alerts)).find((a) => a?.status === 'firing'),
        { timeoutMs: WAIT_MS, context: childOutput },
      );
      expect(notified.labels).toMatchObject({ severity: 'critical', node: VICTIM, network: NETWORK });
      expect(notified.annotations.description).toContain(VICTIM);

      await fleet!.node(VICTIM).revive();

      await waitFor(
        'a resolved LedgerNodeDown notification at the webhook receiver',
        () => received.map((m) => nodeDownFor(m.alerts)).find((a) => a?.status === 'resolved'),
        { timeoutMs: WAIT_MS, context: childOutput },
      );
      await waitFor(
        'LedgerNodeDown gone from Prometheus',
        async () => (nodeDownFor(await promAlerts()) ? undefined : true),
        {
          timeoutMs: WAIT_MS,
          context: childOutput,
        },
      );
    },
  );
});
