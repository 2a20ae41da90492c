// Parity with a real Alertmanager (Debian's prometheus-alertmanager): the same alerts (the
// exporter's, pushed to Alertmanager each second as Prometheus would) and the same silences
// (added and expired with amtool in both) must suppress the same notifications: while silenced
// neither notifies the muted node, both notify the others, and both notify it once the silence
// is expired.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimFleet } from '../../../src/sim/index.js';
import { startAlertmanager, startWebhookSink, type WebhookMessage } from '../../support/alertmanager.js';
import { startExporter, type ExporterChild } from '../../support/exporterChild.js';
import { writeNodeDownYaml } from '../../support/nodeDownYaml.js';
import { checkTools, requireTool } from '../../support/prometheus-tools.js';
import { waitFor, type ManagedProcess } from '../../support/processes.js';
import { basicAuth, withCredentials, writeWebConfig } from '../../support/webAuth.js';

const tools = checkTools(['prometheus-alertmanager']);
const AMTOOL = '/usr/bin/amtool';
const USER = 'alice';
const PASSWORD = 'parity-pw';
const ALICE = { username: USER, password: PASSWORD };
const NODES = ['par-1', 'par-2', 'par-3'];
const WAIT = 30_000;
const run = promisify(execFile);

interface V2Alert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
}

describe.skipIf(tools.skip)(`silences: the built-in engine and Alertmanager mute alike${tools.skipNote}`, () => {
  let dir = '';
  let fleet: SimFleet;
  let exporter: ExporterChild | undefined;
  let am: ManagedProcess | undefined;
  let amUrl = '';
  let ours: Awaited<ReturnType<typeof startWebhookSink>>;
  let theirs: Awaited<ReturnType<typeof startWebhookSink>>;
  let feeder: NodeJS.Timeout | undefined;
  const auth = basicAuth(ALICE);

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'lfe-silence-parity-'));
    fleet = await SimFleet.start(
      NODES.map((name) => ({ name, network: 'par', build: 'current' as const, peers: 5 })),
      { host: '127.0.0.1', layout: 'port-per-node', blockTimeMs: 500 },
    );
    ours = await startWebhookSink();
    theirs = await startWebhookSink();
    const started = await startAlertmanager(requireTool(tools, 'prometheus-alertmanager'), dir, theirs.url);
    [am, amUrl] = [started.process, started.url];
    const configPath = writeNodeDownYaml(dir, fleet.nodes, 'par', [{ name: 'hook', webhook: { url: ours.url } }], {
      for: '1s',
      // As the Alertmanager of test/support/alertmanager.ts groups.
      alerting: { groupBy: ['alertname', 'node'], groupWait: '1s', repeatInterval: '1h' },
    });
    exporter = await startExporter(configPath, ['--web.config.file', writeWebConfig(dir, [ALICE])]);
    await waitFor(
      'both ready',
      async () => {
        const a = await fetch(`${exporter!.url}/readyz`, { headers: auth });
        const b = await fetch(`${amUrl}/-/ready`);
        return a.ok && b.ok ? true : undefined;
      },
      { timeoutMs: WAIT, context: () => am!.output() },
    );
    // Prometheus' part: every firing alert of the exporter (suppressed ones too) sent each second.
    feeder = setInterval(() => {
      void (async () => {
        const alerts = (await (await fetch(`${exporter!.url}/api/v2/alerts`, { headers: auth })).json()) as V2Alert[];
        const endsAt = new Date(Date.now() + 5_000).toISOString();
        await fetch(`${amUrl}/api/v2/alerts`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(
            alerts.map((a) => ({ labels: a.labels, annotations: a.annotations, startsAt: a.startsAt, endsAt })),
          ),
        });
      })().catch(() => undefined);
    }, 1_000);
  }, 90_000);

  afterAll(async () => {
    clearInterval(feeder);
    await exporter?.kill();
    await am?.stop();
    await fleet?.close();
    await ours?.close();
    await theirs?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const amtool = async (url: string, ...args: string[]) =>
    (await run(AMTOOL, [`--alertmanager.url=${url}`, ...args], { timeout: WAIT })).stdout.trim();
  const exporterUrl = () => withCredentials(exporter!.url, ALICE);
  /** Nodes each side notified as firing, in the order of their first notice. */
  const firingNodes = (msgs: WebhookMessage[]) => [
    ...new Set(msgs.flatMap((m) => m.alerts.filter((a) => a.status === 'firing').map((a) => a.labels.node!))),
  ];

  it(
    'suppress the same notifications for the same silence, and notify alike when it is expired',
    { timeout: 6 * WAIT },
    async () => {
      // One silence in both, with regular expression and negative matchers: it mutes par-2 only.
      const matchers = ['alertname=LedgerNodeDown', 'node=~"par-[23]"', 'node!="par-3"'];
      const args = ['silence', 'add', ...matchers, '--duration=1h', '--comment=parity', `--author=${USER}`];
      const ourId = await amtool(exporterUrl(), ...args);
      const theirId = await amtool(amUrl, ...args);
      for (const n of NODES) await fleet.node(n).kill();

      await waitFor(
        'both notified par-1 and par-3',
        () => {
          const a = firingNodes(ours.received).sort();
          const b = firingNodes(theirs.received).sort();
          return a.length >= 2 && b.length >= 2 ? true : undefined;
        },
        { timeoutMs: WAIT, context: () => am!.output() },
      );
      await new Promise((r) => setTimeout(r, 4_000)); // several group intervals more on both sides
      expect(firingNodes(ours.received).sort()).toEqual(['par-1', 'par-3']);
      expect(firingNodes(theirs.received).sort()).toEqual(['par-1', 'par-3']);
      // Both say which silence suppresses par-2.
      const state = async (url: string, headers: Record<string, string>) =>
        (
          (await (await fetch(`${url}/api/v2/alerts?filter=node%3D%22par-2%22`, { headers })).json()) as Array<{
            status: { state: string; silencedBy: string[] };
          }>
        )[0]?.status;
      expect(await state(exporter!.url, auth)).toEqual(
        expect.objectContaining({ state: 'suppressed', silencedBy: [ourId] }),
      );
      expect(await state(amUrl, {})).toEqual(expect.objectContaining({ state: 'suppressed', silencedBy: [theirId] }));

      await amtool(exporterUrl(), 'silence', 'expire', ourId);
      await amtool(amUrl, 'silence', 'expire', theirId);
      await waitFor(
        'both notified par-2',
        () => {
          const a = firingNodes(ours.received);
          const b = firingNodes(theirs.received);
          return a.includes('par-2') && b.includes('par-2') ? true : undefined;
        },
        { timeoutMs: WAIT, context: () => am!.output() },
      );
      expect(firingNodes(ours.received)[2]).toBe('par-2');
      expect(firingNodes(theirs.received)[2]).toBe('par-2');
    },
  );
});
