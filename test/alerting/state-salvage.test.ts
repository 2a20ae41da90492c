// A damaged alert state file is salvaged, with the real daemon over loopback: a node down, its
// alert fired and notified; the daemon stops; alerts.json is cut short; a new daemon starts while
// the node is still down. Cut after the notification log, the alert that fires again is not sent
// again inside repeatInterval; cut inside the log, the log line says so and it is sent again.
// Either way the damaged file is kept as it was.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ALERT_STATE_FILE } from '../../src/alerting/notify/stateFile.js';
import type { Daemon } from '../../src/daemon/index.js';
import type { ExporterConfig } from '../../src/config/exporterConfig.js';
import { SimFleet } from '../../src/sim/index.js';
import { waitFor } from '../support/processes.js';
import {
  alertingFleetConfig,
  closeAlertingRig,
  nodeDownToWebhook,
  startAlertingDaemon,
  startWebhook,
} from '../support/alertingDaemon.js';

const VICTIM = 'slv-2';

interface Rig {
  dir?: string;
  fleet?: SimFleet;
  daemon?: Daemon;
  receiver?: Server;
}

/** Two nodes, LedgerNodeDown to a webhook; the victim down and its firing notification delivered and saved. */
async function firedAndSaved(rig: Rig, firings: string[][]): Promise<{ config: ExporterConfig; stateFile: string }> {
  rig.dir = mkdtempSync(path.join(tmpdir(), 'lfe-state-salvage-'));
  rig.fleet = await SimFleet.start(
    ['slv-1', VICTIM].map((name) => ({ name, network: 'slv', build: 'current' as const, peers: 5 })),
    { host: '127.0.0.1', blockTimeMs: 500 },
  );
  const hook = await startWebhook((body) => {
    if (body.status === 'firing') firings.push((body.alerts ?? []).map((a) => a.labels.node ?? ''));
  });
  rig.receiver = hook.server;
  const alerting = nodeDownToWebhook(rig.dir, hook.url);
  mkdirSync(alerting.stateDir, { recursive: true });
  const config = alertingFleetConfig(rig.fleet.nodes, {
    dir: rig.dir,
    network: 'slv',
    intervalMs: 250,
    timeoutMs: 200,
    concurrency: 2,
    maxUpstreamSeries: 100,
    alerting,
  });
  rig.daemon = (await startAlertingDaemon(config)).daemon;
  await rig.fleet.node(VICTIM).kill();
  await waitFor('the firing notification', () => (firings.length === 1 ? true : undefined), { timeoutMs: 15_000 });
  const stateFile = path.join(alerting.stateDir, ALERT_STATE_FILE);
  await waitFor(
    'the delivery saved',
    () => {
      const saved = existsSync(stateFile)
        ? (JSON.parse(readFileSync(stateFile, 'utf8')) as { dispatcher: { log: object; unconfirmed: object } })
        : undefined;
      const d = saved?.dispatcher;
      return d && Object.keys(d.log).length === 1 && Object.keys(d.unconfirmed).length === 0 ? true : undefined;
    },
    { timeoutMs: 10_000 },
  );
  await rig.daemon.close();
  rig.daemon = undefined;
  return { config, stateFile };
}

/** The copies set aside beside the state file. */
const damagedCopies = (stateFile: string) =>
  readdirSync(path.dirname(stateFile)).filter((f) => f.startsWith(`${ALERT_STATE_FILE}.damaged-`));

describe('salvage of a damaged alert state file by the daemon', () => {
  const rig: Rig = {};
  afterEach(() => closeAlertingRig(rig));

  it('cut after the notification log: the alert firing again is not sent again inside repeatInterval', async () => {
    const firings: string[][] = [];
    const { config, stateFile } = await firedAndSaved(rig, firings);
    const text = readFileSync(stateFile, 'utf8');
    // Mid-file, inside the one instance: the log (before it) is whole.
    const cut = text.slice(0, text.indexOf('"instances"') + 40);
    writeFileSync(stateFile, cut);

    const restarted = await startAlertingDaemon(config);
    rig.daemon = restarted.daemon;
    await waitFor('the salvage logged', () => (/alert state file damaged/.test(restarted.log()) ? true : undefined), {
      timeoutMs: 10_000,
    });
    // The lost instance fires again after its `for` (500 ms); several group intervals (1 s) pass.
    await waitFor(
      'the alert firing again',
      async () => {
        const alerts = (await (await fetch(`${rig.daemon!.url}/api/alerts`)).json()) as { alerts: { state: string }[] };
        return alerts.alerts.some((a) => a.state === 'firing') ? true : undefined;
      },
      { timeoutMs: 10_000 },
    );
    await new Promise((r) => setTimeout(r, 3_500));
    expect(firings).toEqual([[VICTIM]]);

    const log = restarted.log();
    expect(log).toMatch(/recovered 1 notification log entry, 0 unconfirmed notifications, 0 alertmanager pushes/);
    expect(log).toMatch(
      /cannot be proved: alert instances lost \(1 entry cut or invalid\): resolves of alerts that cleared while the exporter/,
    );
    expect(log).not.toMatch(/notification log entries after the cut are lost/);
    const copies = damagedCopies(stateFile);
    expect(copies).toHaveLength(1);
    expect(log).toContain(`kept as ${path.join(path.dirname(stateFile), copies[0]!)}`);
    expect(readFileSync(path.join(path.dirname(stateFile), copies[0]!), 'utf8')).toBe(cut);
  }, 60_000);

  it('cut inside the notification log: the log says what cannot be proved; the alert is sent again', async () => {
    const firings: string[][] = [];
    const { config, stateFile } = await firedAndSaved(rig, firings);
    const text = readFileSync(stateFile, 'utf8');
    const cut = text.slice(0, text.indexOf('"log"') + 20);
    writeFileSync(stateFile, cut);

    const restarted = await startAlertingDaemon(config);
    rig.daemon = restarted.daemon;
    await waitFor('the firing notification sent again', () => (firings.length === 2 ? true : undefined), {
      timeoutMs: 15_000,
    });
    const log = restarted.log();
    expect(log).toMatch(/recovered 0 notification log entries/);
    expect(log).toMatch(
      /notification log entries after the cut are lost: an alert not in the recovered log that fires again is notified again/,
    );
    expect(log).toMatch(/alert instances lost/);
    expect(damagedCopies(stateFile)).toHaveLength(1);
    expect(readFileSync(path.join(path.dirname(stateFile), damagedCopies(stateFile)[0]!), 'utf8')).toBe(cut);
  }, 60_000);
});
