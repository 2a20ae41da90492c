// The watch alerts of the real exporter (dist/cli.js) across what is not the chain's doing: kill -9
// while firing, a reload that adds entries, the nodes that serve the reads going away. Only the
// chain's state fires or resolves: the simulator's control API takes the validator offline and
// brings it back, and the webhook is paged once for each.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ALERT_DEFINITIONS } from '../../src/alerting/rules/definitions/index.js';
import { SimFleet } from '../../src/sim/index.js';
import { closeServer, onlyRules, startWebhook, type WebhookBody } from '../support/alertingDaemon.js';
import { deliveryRecorded } from '../support/alertState.js';
import { sampleValue, scrapeText, startExporter, type ExporterChild } from '../support/exporterChild.js';
import { waitFor } from '../support/processes.js';

const WAIT = 20_000;
const NETWORK = 'net';
const WATCH_RULES = ALERT_DEFINITIONS.filter((d) => d.scope === 'watch').map((d) => d.name);

interface Listed {
  alerts: Array<{
    name: string;
    state: string;
    activeAt: string;
    firingSince?: string;
    labels: Record<string, string>;
  }>;
}

let dir = '';
let fleet: SimFleet;
let hook: Server;
let hookUrl = '';
const pages: WebhookBody[] = [];
let exporter: ExporterChild | undefined;
let targets: { validator: string; miner: string; account: string };

/** The watch rules only, each firing after 2 s of its condition and resolving as soon as it ends. */
function writeConfig(withNewEntries: boolean): string {
  const rules = {
    ...onlyRules({}),
    ...Object.fromEntries(WATCH_RULES.map((name) => [name, { for: '2s', keepFiringFor: '0s' }])),
  };
  const file = path.join(dir, 'fleet.yaml');
  writeFileSync(
    file,
    stringify({
      listen: '127.0.0.1:0',
      defaults: { interval: '250ms', timeout: '200ms', probes: ['health', 'blockNumber'] },
      nodes: fleet.nodes.map((n) => ({ name: n.name, url: n.url, network: NETWORK })),
      networks: { [NETWORK]: { decimals: 9, epochBlocks: 25 } },
      watch: {
        interval: '200ms',
        validators: [{ name: 'val', address: targets.validator, network: NETWORK, seatMarginBelow: '10%' }],
        ...(withNewEntries && {
          miners: [{ name: 'rig', address: targets.miner, network: NETWORK }],
          accounts: [{ name: 'hot', address: targets.account, network: NETWORK, minBalance: 25 }],
        }),
      },
      evidence: { dir: path.join(dir, 'evidence') },
      alerting: {
        stateDir: path.join(dir, 'state'),
        evaluationInterval: '250ms',
        rules,
        groupWait: '0s',
        groupInterval: '1s',
        repeatInterval: '1h',
        receivers: [{ name: 'hook', webhook: { url: hookUrl } }],
      },
    }),
  );
  return file;
}

async function control(pathname: string, body: unknown): Promise<void> {
  const res = await fetch(`${fleet.controlUrl}${pathname}`, { method: 'POST', body: JSON.stringify(body) });
  expect(res.status, await res.text()).toBeLessThan(300);
}

const validatorControl = (change: Record<string, unknown>, address = targets.validator) =>
  control(`/networks/${NETWORK}/validators/${address}`, change);
const validatorState = async (address: string) =>
  (await (await fetch(`${fleet.controlUrl}/networks/${NETWORK}/validators/${address}`)).json()) as {
    stake: string;
    agentScore: number;
    commissionBps: number;
  };
const seatMargin = async (e: ExporterChild) =>
  sampleValue(await scrapeText(e.url), 'ledger_watch_validator_seat_margin_ratio', { name: 'val' });
const count = (status: string) => pages.filter((m) => m.status === status).length;
const watchAlerts = async (e: ExporterChild) =>
  ((await (await fetch(`${e.url}/api/alerts`)).json()) as Listed).alerts.filter((a) => WATCH_RULES.includes(a.name));
const quiet = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The receiver has the page; a kill -9 before its delivery is on disk would send it again after the restart. */
const delivered = () =>
  waitFor('the page recorded as delivered', () => deliveryRecorded(path.join(dir, 'state')), { timeoutMs: WAIT });

/** Waits until the exporter has read `name` after its start or reload (its last success is exported). */
const readOnce = (e: ExporterChild, name: string) =>
  waitFor(
    `a read of ${name}`,
    async () => {
      const v = sampleValue(await scrapeText(e.url), 'ledger_watch_last_success_timestamp_seconds', { name });
      return v !== undefined && v > 0 ? v : undefined;
    },
    { timeoutMs: WAIT, intervalMs: 100 },
  );

/** The exporter the tests before left running, or a new one (a test run alone). */
async function running(): Promise<ExporterChild> {
  if (!exporter) {
    exporter = await startExporter(writeConfig(true));
    await readOnce(exporter, 'val');
  }
  return exporter;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'lfe-watch-restart-'));
  fleet = await SimFleet.start(
    ['w-1', 'w-2', 'w-3'].map((name) => ({ name, network: NETWORK })),
    { host: '127.0.0.1', layout: 'port-per-node', blockTimeMs: 50, epochBlocks: 25, controlPort: 0 },
  );
  targets = fleet.chain(NETWORK).watchTargets();
  ({ server: hook, url: hookUrl } = await startWebhook((body) => void pages.push(body)));
}, 60_000);

afterAll(async () => {
  await exporter?.kill();
  await fleet?.close();
  await closeServer(hook);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('watch alert state is changed by the chain only', () => {
  it(
    'offline pages once; node switches, kill -9 and a reload adding entries neither repeat nor resolve it; ' +
      'back online resolves once',
    { timeout: 10 * WAIT },
    async () => {
      const configPath = writeConfig(false);
      exporter = await startExporter(configPath);
      await readOnce(exporter, 'val');

      // Healthy, and the reads move to the one node left: nothing fires.
      await Promise.all([fleet.node('w-1').kill(), fleet.node('w-2').kill()]);
      await quiet(2_500);
      await Promise.all([fleet.node('w-1').revive(), fleet.node('w-2').revive()]);
      await quiet(1_000);
      expect(pages).toEqual([]);
      expect(await watchAlerts(exporter)).toEqual([]);

      await validatorControl({ online: false });
      await waitFor('the firing page', () => (count('firing') === 1 ? true : undefined), { timeoutMs: WAIT });
      const firing = (await watchAlerts(exporter)).find((a) => a.state === 'firing')!;
      expect(firing).toMatchObject({ name: 'LedgerValidatorOffline', labels: { name: 'val' } });

      // While firing, the reads move to another node: still firing, nothing sent.
      await Promise.all([fleet.node('w-2').kill(), fleet.node('w-3').kill()]);
      await quiet(2_500);
      await Promise.all([fleet.node('w-2').revive(), fleet.node('w-3').revive()]);
      await quiet(1_000);
      expect((await watchAlerts(exporter)).map((a) => [a.name, a.state])).toEqual([
        ['LedgerValidatorOffline', 'firing'],
      ]);

      // kill -9 while firing; the restart on the same state directory restores it and sends nothing.
      await delivered();
      await exporter.kill();
      exporter = await startExporter(configPath);
      const restored = await waitFor(
        'firing restored',
        async () => (await watchAlerts(exporter!)).find((a) => a.state === 'firing'),
        { timeoutMs: WAIT },
      );
      expect(restored.firingSince).toBe(firing.firingSince);
      await readOnce(exporter, 'val');
      await quiet(2_500);

      // A reload adds a miner and an account: nothing fires for them by itself.
      writeConfig(true);
      exporter.child.kill('SIGHUP');
      await exporter.waitForLog('the reload', (l) => l.msg === 'configuration reloaded', WAIT);
      await readOnce(exporter, 'rig');
      await readOnce(exporter, 'hot');
      await quiet(2_500);
      expect((await watchAlerts(exporter)).map((a) => [a.name, a.labels.name, a.state])).toEqual([
        ['LedgerValidatorOffline', 'val', 'firing'],
      ]);
      expect(pages.map((p) => p.status)).toEqual(['firing']);

      // The chain heals: resolved, once.
      await validatorControl({ online: true });
      await waitFor('the resolved page', () => (count('resolved') === 1 ? true : undefined), { timeoutMs: WAIT });
      await quiet(2_500);
      expect(pages.map((p) => p.status)).toEqual(['firing', 'resolved']);
      expect(pages[1]!.alerts!.map((a) => a.labels.alertname)).toEqual(['LedgerValidatorOffline']);
      expect(await watchAlerts(exporter)).toEqual([]);
    },
  );

  it(
    'seat at risk: pending, then firing, when the full set puts the validator near its lowest seat; ' +
      'resolved when its stake is back',
    { timeout: 5 * WAIT },
    async () => {
      const e = await running();
      const before = pages.length;
      const own = await validatorState(targets.validator);
      const stake = BigInt(own.stake);
      expect(await seatMargin(e)).toBe(1);
      // Two candidates fill the last seats, a little lighter than the validator will be.
      const fillers = ['f1', 'f2'].map((s) => s.repeat(32));
      for (const f of fillers)
        await validatorControl({ stake: ((stake * 45n) / 100n).toString(), agentScore: own.agentScore }, f);
      await waitFor('the full set', async () => ((await seatMargin(e)) ?? 1) < 1, { timeoutMs: WAIT });
      expect(await watchAlerts(e)).toEqual([]);

      // Half its stake withdrawn: it weighs a few percent more than the lowest seat.
      await validatorControl({ stake: (stake / 2n).toString() });
      const states: string[] = [];
      await waitFor(
        'LedgerValidatorSeatAtRisk firing',
        async () => {
          const a = (await watchAlerts(e)).find((x) => x.name === 'LedgerValidatorSeatAtRisk');
          if (a && states.at(-1) !== a.state) states.push(a.state);
          return a?.state === 'firing' ? a : undefined;
        },
        { timeoutMs: WAIT, intervalMs: 50 },
      );
      expect(states).toEqual(['pending', 'firing']);
      const margin = await seatMargin(e);
      expect(margin).toBeGreaterThan(0);
      expect(margin).toBeLessThan(0.1);
      await waitFor('the firing page', () => (pages.length === before + 1 ? true : undefined), { timeoutMs: WAIT });
      expect(pages.at(-1)).toMatchObject({
        status: 'firing',
        alerts: [{ labels: { alertname: 'LedgerValidatorSeatAtRisk' } }],
      });

      // The stake restored: the margin is back above 10% at the next boundary, and the alert resolves.
      await validatorControl({ stake: stake.toString() });
      await waitFor('the resolved page', () => (pages.length === before + 2 ? true : undefined), { timeoutMs: WAIT });
      expect(pages.at(-1)).toMatchObject({
        status: 'resolved',
        alerts: [{ labels: { alertname: 'LedgerValidatorSeatAtRisk' } }],
      });
      expect(await seatMargin(e)).toBeGreaterThan(0.1);
      expect(await watchAlerts(e)).toEqual([]);
      for (const f of fillers) await validatorControl({ stake: '0' }, f);
    },
  );

  it(
    'a commission change (none configured) pages once; kill -9 forgets the hour behind it ' +
      'but neither resolves nor repeats it',
    { timeout: 5 * WAIT },
    async () => {
      await running();
      const before = pages.length;
      const bps = (await validatorState(targets.validator)).commissionBps;
      await validatorControl({ commissionBps: bps + 100 });
      await waitFor('the firing page', () => (pages.length === before + 1 ? true : undefined), { timeoutMs: WAIT });
      expect(pages.at(-1)).toMatchObject({
        status: 'firing',
        alerts: [{ labels: { alertname: 'LedgerValidatorCommissionChanged', name: 'val' } }],
      });
      await quiet(1_000);
      await delivered();
      await exporter!.kill();
      exporter = await startExporter(writeConfig(true));
      await readOnce(exporter, 'val');
      await quiet(3_000);
      expect((await watchAlerts(exporter)).map((a) => [a.name, a.state])).toEqual([
        ['LedgerValidatorCommissionChanged', 'firing'],
      ]);
      expect(pages.length).toBe(before + 1);
    },
  );
});
