// Built-in alerting over shards and HA twins, all real processes on loopback: one config of
// simulated nodes, exporter processes `--shard 0 --total-shards 2` (twice: two replicas of the same
// shard) and `--shard 1 --total-shards 2`, each with its own engine pushing to one Debian
// prometheus-alertmanager, which notifies a webhook here. A killed node must give exactly one
// alert, from the shard that owns it; a node of the twinned shard exactly one notification.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shardOfName } from '../../src/shard/index.js';
import { SimFleet } from '../../src/sim/index.js';
import { startAlertmanager, startWebhookSink, type WebhookMessage } from '../support/alertmanager.js';
import { requireBuiltCli, startDaemonProcess, type DaemonProcess } from '../support/cliProcess.js';
import { writeNodeDownYaml } from '../support/nodeDownYaml.js';
import { checkTools, requireTool } from '../support/prometheus-tools.js';
import { getJson, waitFor, waitReady, type ManagedProcess } from '../support/processes.js';

const tools = checkTools(['prometheus-alertmanager']);
const NETWORK = 'ha';
const NAMES = Array.from({ length: 8 }, (_, i) => `ha-${i + 1}`);
const WAIT_MS = 45_000;
/** After both twins have pushed: several Alertmanager group intervals (1 s) for a second notice to show. */
const SETTLE_MS = 5_000;
const NODE_DOWN_LABELS = (node: string) => ({
  alertname: 'LedgerNodeDown',
  severity: 'critical',
  node,
  network: NETWORK,
});

interface ExporterAlert {
  name: string;
  labels: Record<string, string>;
  state: string;
  lastNotifiedAt?: string;
}
interface AmAlert {
  labels: Record<string, string>;
  generatorURL: string;
  status: { state: string };
}

const victimOf = (shard: number) => NAMES.find((n) => shardOfName(n, 2) === shard)!;

describe.skipIf(tools.skip)(
  `built-in alerting of two shards and an HA twin into one Debian Alertmanager${tools.skipNote}`,
  () => {
    let dir = '';
    let fleet: SimFleet | undefined;
    let hook: Awaited<ReturnType<typeof startWebhookSink>> | undefined;
    let alertmanager: ManagedProcess | undefined;
    let amUrl = '';
    const replicas: Record<'shard0' | 'shard0twin' | 'shard1', DaemonProcess | undefined> = {
      shard0: undefined,
      shard0twin: undefined,
      shard1: undefined,
    };
    const context = () =>
      [
        `--- alertmanager ---\n${alertmanager?.output() ?? ''}`,
        ...Object.entries(replicas).map(([k, r]) => `--- ${k} ---\n${r?.stderr().slice(-2000) ?? ''}`),
      ].join('\n');

    beforeAll(async () => {
      requireBuiltCli();
      const binary = requireTool(tools, 'prometheus-alertmanager');
      expect(victimOf(0)).toBeDefined();
      expect(victimOf(1)).toBeDefined();
      dir = mkdtempSync(path.join(tmpdir(), 'lfe-shard-am-'));
      fleet = await SimFleet.start(
        NAMES.map((name) => ({ name, network: NETWORK, build: 'current' as const, peers: 5 })),
        { host: '127.0.0.1', layout: 'shared-port', blockTimeMs: 500 },
      );
      hook = await startWebhookSink();
      const am = await startAlertmanager(binary, dir, hook.url);
      alertmanager = am.process;
      amUrl = am.url;
      await waitFor('Alertmanager ready', async () => ((await fetch(`${amUrl}/-/ready`)).ok ? true : undefined), {
        timeoutMs: WAIT_MS,
        context,
      });

      // One config file for every replica; only the data directory differs, through the environment.
      const file = writeNodeDownYaml(dir, fleet.nodes, NETWORK, [{ name: 'am', alertmanager: { urls: [amUrl] } }], {
        for: '1s',
        top: { evidence: { dir: '${LFE_DATA}/evidence' } },
        alerting: { stateDir: '${LFE_DATA}/alerting' },
      });
      const start = (name: keyof typeof replicas, shard: number) => {
        const data = path.join(dir, name);
        mkdirSync(data);
        return startDaemonProcess(
          ['--config', file, '--log-format', 'json', '--shard', String(shard), '--total-shards', '2'],
          {
            env: { ...process.env, LFE_DATA: data },
            readyTimeoutMs: 30_000,
          },
        );
      };
      [replicas.shard0, replicas.shard0twin, replicas.shard1] = await Promise.all([
        start('shard0', 0),
        start('shard0twin', 0),
        start('shard1', 1),
      ]);
      for (const r of Object.values(replicas)) {
        await waitReady(r!.url, 'a replica ready (first poll round)', { timeoutMs: WAIT_MS, context });
      }
    }, 3 * WAIT_MS);

    afterAll(async () => {
      await Promise.allSettled(Object.values(replicas).map(async (r) => r?.stop()));
      await Promise.allSettled([alertmanager?.stop(), fleet?.close(), hook?.close()]);
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const nodeDown = <A extends { labels: Record<string, string> }>(list: A[], node: string) =>
      list.filter((a) => a.labels.alertname === 'LedgerNodeDown' && a.labels.node === node);
    const amAlerts = () => getJson<AmAlert[]>(`${amUrl}/api/v2/alerts?active=true`);
    const exporterAlerts = async (r: DaemonProcess | undefined) =>
      (await getJson<{ alerts: ExporterAlert[] }>(`${r!.url}/api/alerts`)).alerts;
    const firingNotices = (node: string) =>
      hook!.received.filter((m: WebhookMessage) => m.status === 'firing' && nodeDown(m.alerts, node).length > 0);

    it(
      'a node of shard 1 killed: one LedgerNodeDown in Alertmanager, pushed by shard 1 only',
      { timeout: 3 * WAIT_MS },
      async () => {
        const victim = victimOf(1);
        expect(nodeDown(await amAlerts(), victim)).toEqual([]);
        await fleet!.node(victim).kill();

        const inAm = await waitFor(
          'LedgerNodeDown in Alertmanager',
          async () => nodeDown(await amAlerts(), victim)[0],
          { timeoutMs: WAIT_MS, context },
        );
        expect(inAm.labels).toEqual(NODE_DOWN_LABELS(victim));
        // Alertmanager names the pusher: the generator URL is the exporter's own /api/alerts.
        expect(inAm.generatorURL.startsWith(`${replicas.shard1!.url}/`), inAm.generatorURL).toBe(true);
        await waitFor('the notice at the webhook', () => firingNotices(victim).length > 0, {
          timeoutMs: WAIT_MS,
          context,
        });

        const owner = nodeDown(await exporterAlerts(replicas.shard1), victim);
        expect(owner.map((a) => a.state)).toEqual(['firing']);
        expect(owner[0]!.labels).toEqual(NODE_DOWN_LABELS(victim));
        for (const other of [replicas.shard0, replicas.shard0twin]) {
          expect(nodeDown(await exporterAlerts(other), victim)).toEqual([]);
          expect(await (await fetch(`${other!.url}/metrics`)).text()).not.toContain(`node="${victim}"`);
        }
        expect(nodeDown(await amAlerts(), victim)).toHaveLength(1);
        expect(firingNotices(victim)).toHaveLength(1);
      },
    );

    it(
      'a node of the twinned shard 0 killed: both twins push the same alert, Alertmanager notifies once',
      { timeout: 3 * WAIT_MS },
      async () => {
        const victim = victimOf(0);
        expect(firingNotices(victim)).toEqual([]);
        await fleet!.node(victim).kill();

        // Both replicas fire and have pushed to Alertmanager, with identical label sets.
        const pushed = await waitFor(
          'LedgerNodeDown firing and pushed by both twins',
          async () => {
            const both = await Promise.all([exporterAlerts(replicas.shard0), exporterAlerts(replicas.shard0twin)]);
            const mine = both.map((list) => nodeDown(list, victim)[0]);
            return mine.every((a) => a?.state === 'firing' && a.lastNotifiedAt !== undefined) ? mine : undefined;
          },
          { timeoutMs: WAIT_MS, context },
        );
        expect(pushed[0]!.labels).toEqual(NODE_DOWN_LABELS(victim));
        expect(pushed[1]!.labels).toEqual(pushed[0]!.labels);
        expect(nodeDown(await exporterAlerts(replicas.shard1), victim)).toEqual([]);

        await waitFor('the notice at the webhook', () => firingNotices(victim).length > 0, {
          timeoutMs: WAIT_MS,
          context,
        });
        await new Promise((r) => setTimeout(r, SETTLE_MS));
        expect(nodeDown(await amAlerts(), victim).map((a) => a.labels)).toEqual([NODE_DOWN_LABELS(victim)]);
        const notices = firingNotices(victim);
        expect(notices).toHaveLength(1);
        expect(nodeDown(notices[0]!.alerts, victim)).toHaveLength(1);
      },
    );
  },
);
