// Restarts of the real exporter (dist/cli.js) with the built-in alerting: SIGTERM and kill -9
// while an alert is pending or firing, and a node that recovers while the exporter is down.
// Nothing is repeated inside the repeat interval, `for` is not restarted, and the resolved
// notification arrives after the restart.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_STATE_FILE } from '../../src/alerting/notify/stateFile.js';
import { SimFleet } from '../../src/sim/index.js';
import { startExporter, type ExporterChild } from '../support/exporterChild.js';
import { writeNodeDownYaml } from '../support/nodeDownYaml.js';
import { waitFor, waitReady } from '../support/processes.js';

const VICTIM = 'rst-2';
const WAIT = 20_000;

interface Hook {
  status: string;
  alerts: Array<{ status: string; labels: Record<string, string> }>;
}
interface Listed {
  alerts: Array<{
    name: string;
    state: string;
    activeAt: string;
    firingSince?: string;
    labels: Record<string, string>;
  }>;
}

/** Only LedgerNodeDown (for 3s) to one webhook; groups sent at once, repeated after an hour. */
const writeConfig = (dir: string, fleet: SimFleet, hookUrl: string) =>
  writeNodeDownYaml(dir, fleet.nodes, 'rst', [{ name: 'hook', webhook: { url: hookUrl } }], {
    for: '3s',
    alerting: { repeatInterval: '1h' },
  });

/** A two-node fleet, a webhook that records what arrived and what it answered, and the config. */
interface Rig {
  dir: string;
  fleet: SimFleet;
  configPath: string;
  arrived: Hook[];
  answered: Hook[];
  /** How long the hook holds its answer to the next POST (default at once). */
  hold(ms: number): void;
  close(): Promise<void>;
}

async function setUp(prefix: string): Promise<Rig> {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const fleet = await SimFleet.start(
    ['rst-1', VICTIM].map((name) => ({ name, network: 'rst', build: 'current' as const, peers: 5 })),
    { host: '127.0.0.1', layout: 'port-per-node', blockTimeMs: 500 },
  );
  const arrived: Hook[] = [];
  const answered: Hook[] = [];
  let holdMs = 0;
  const hook = createServer((req, res) => {
    // The start-up dry check sends a HEAD to the receiver's origin: that is no notification.
    if (req.method !== 'POST') {
      res.writeHead(204).end();
      return;
    }
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const message = JSON.parse(body) as Hook;
      arrived.push(message);
      const timer = setTimeout(() => {
        res.writeHead(200).end();
        answered.push(message);
      }, holdMs);
      res.on('close', () => clearTimeout(timer));
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  const configPath = writeConfig(dir, fleet, `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`);
  return {
    dir,
    fleet,
    configPath,
    arrived,
    answered,
    hold: (ms) => (holdMs = ms),
    async close() {
      await fleet.close();
      hook.closeAllConnections();
      await new Promise((r) => hook.close(r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('alert state across restarts of the exporter', () => {
  let rig: Rig;
  let dir = '';
  let configPath = '';
  let fleet: SimFleet;
  let received: Hook[] = [];
  let exporter: ExporterChild | undefined;

  beforeAll(async () => {
    rig = await setUp('lfe-alert-restart-');
    ({ dir, configPath, fleet, arrived: received } = rig);
  }, 60_000);

  afterAll(async () => {
    await exporter?.kill();
    await rig?.close();
  });

  const listed = async (e: ExporterChild) =>
    ((await (await fetch(`${e.url}/api/alerts`)).json()) as Listed).alerts.filter((a) => a.name === 'LedgerNodeDown');
  const count = (status: string) => received.filter((m) => m.status === status).length;
  const start = async () => (exporter = await startExporter(configPath));
  const sigterm = async () => {
    exporter!.child.kill('SIGTERM');
    expect((await exporter!.exited(WAIT)).code).toBe(0);
  };

  it(
    'pending keeps activeAt over SIGTERM; firing outlives SIGTERM and kill -9 unrepeated; recovery while down resolves',
    { timeout: 12 * WAIT },
    async () => {
      let e = await start();
      await waitReady(e.url, 'first evaluation', { timeoutMs: WAIT });
      await fleet.node(VICTIM).kill();
      const pending = await waitFor('pending', async () => (await listed(e)).find((a) => a.state === 'pending'), {
        timeoutMs: WAIT,
      });

      // SIGTERM while pending: `for` keeps counting from the first activeAt.
      await sigterm();
      e = await start();
      const firing = await waitFor(
        'firing after the restart',
        async () => (await listed(e)).find((a) => a.state === 'firing'),
        { timeoutMs: WAIT },
      );
      expect(firing.activeAt).toBe(pending.activeAt);
      await waitFor('the firing notification', () => (count('firing') === 1 ? true : undefined), { timeoutMs: WAIT });

      // SIGTERM while firing, then kill -9 while firing: still firing since the same time, nothing re-sent.
      for (const stop of [sigterm, () => exporter!.kill()]) {
        await stop();
        e = await start();
        const again = await waitFor(
          'firing restored',
          async () => (await listed(e)).find((a) => a.state === 'firing'),
          { timeoutMs: WAIT },
        );
        expect(again.firingSince).toBe(firing.firingSince);
        expect(again.activeAt).toBe(pending.activeAt);
        // Several group intervals pass: the notification log says it was sent.
        await e.waitForLog(
          'some evaluations',
          (l) => typeof l.msg === 'string' && l.msg === 'built-in alerting on',
          WAIT,
        );
        await new Promise((r) => setTimeout(r, 2_500));
        expect(count('firing')).toBe(1);
      }

      // kill -9 while firing; the node recovers while the exporter is down; the restart resolves it.
      await exporter!.kill();
      await fleet.node(VICTIM).revive();
      e = await start();
      await waitFor('the resolved notification', () => (count('resolved') === 1 ? true : undefined), {
        timeoutMs: WAIT,
      });
      expect(received.filter((m) => m.status === 'resolved')[0]!.alerts[0]!.labels).toMatchObject({
        alertname: 'LedgerNodeDown',
        node: VICTIM,
      });
      expect(count('firing')).toBe(1);
      await sigterm();
    },
  );

  it(
    'a corrupt state file is reported and kept aside; what it proves (here nothing) is loaded',
    { timeout: 3 * WAIT },
    async () => {
      writeFileSync(path.join(dir, 'state', ALERT_STATE_FILE), '{"version":1,"instances":[{"id":');
      const e = await start();
      const line = await e.waitForLog(
        'the damaged-state report',
        (l) => typeof l.msg === 'string' && l.msg.includes('damaged'),
        WAIT,
      );
      expect(line.msg).toMatch(/alert state file damaged \(not JSON .*\): kept as .*alerts\.json\.damaged-\S+Z;/);
      expect(line.msg).toMatch(/recovered 0 notification log entries, .* and 0 alert instances/);
      expect((await fetch(`${e.url}/api/alerts`)).status).toBe(200);
      await sigterm();
    },
  );
});

describe('a notification in flight at SIGTERM', () => {
  let rig: Rig;
  let exporter: ExporterChild | undefined;

  beforeAll(async () => {
    rig = await setUp('lfe-alert-inflight-');
  }, 60_000);

  afterAll(async () => {
    await exporter?.kill();
    await rig?.close();
  });

  const count = (list: Hook[], status: string) => list.filter((m) => m.status === status).length;
  const sigtermWhenArrived = async (status: string, n: number) => {
    await waitFor(
      `${status} notification #${n} at the hook`,
      () => (count(rig.arrived, status) === n ? true : undefined),
      { timeoutMs: WAIT, intervalMs: 20 },
    );
    exporter!.child.kill('SIGTERM');
    return exporter!.exited(WAIT);
  };
  const startAndSettle = async () => {
    exporter = await startExporter(rig.configPath);
    await exporter.waitForLog('alerting on', (l) => l.msg === 'built-in alerting on', WAIT);
    // Several evaluations and group intervals.
    await new Promise((r) => setTimeout(r, 2_500));
  };

  it(
    'is delivered before the exit and not sent again after the restart; one past the bound is sent after it',
    { timeout: 8 * WAIT },
    async () => {
      // The hook answers after 2 s, inside the shutdown's 5 s bound for sends in flight.
      rig.hold(2_000);
      exporter = await startExporter(rig.configPath);
      await rig.fleet.node(VICTIM).kill();
      const exit = await sigtermWhenArrived('firing', 1);
      expect(exit.code).toBe(0);
      expect(count(rig.answered, 'firing')).toBe(1);

      rig.hold(0);
      await startAndSettle();
      expect(count(rig.arrived, 'firing')).toBe(1);

      // The hook holds the resolved notification past the bound: the exporter exits without it
      // and sends it again after the restart (at least once, never lost).
      rig.hold(60_000);
      await rig.fleet.node(VICTIM).revive();
      const started = Date.now();
      const late = await sigtermWhenArrived('resolved', 1);
      expect(late.code).toBe(0);
      expect(Date.now() - started).toBeLessThan(WAIT);
      expect(count(rig.answered, 'resolved')).toBe(0);

      rig.hold(0);
      await startAndSettle();
      await waitFor(
        'the resolved notification sent again',
        () => (count(rig.answered, 'resolved') === 1 ? true : undefined),
        { timeoutMs: WAIT },
      );
      expect(count(rig.arrived, 'resolved')).toBe(2);
      expect(count(rig.arrived, 'firing')).toBe(1);
      exporter.child.kill('SIGTERM');
      expect((await exporter.exited(WAIT)).code).toBe(0);
    },
  );
});
