// A write of the alert state that fails (here: the file's name is taken by a directory, so the
// rename fails as a full disk fails the write) is counted, shown on /readyz and the status page, and retried
// with backoff until it succeeds, though nothing changes in the alert state meanwhile.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_STATE_FILE } from '../../src/alerting/notify/stateFile.js';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import { standardComponents } from '../../src/daemon/features.js';
import { createLogger } from '../../src/logger.js';
import { SimFleet } from '../../src/sim/index.js';
import { waitFor } from '../support/processes.js';
import {
  alertingFleetConfig,
  closeAlertingRig,
  nodeDownToWebhook,
  startWebhook,
  type Notified,
} from '../support/alertingDaemon.js';
import type { Server } from 'node:http';

const NETWORK = 'wrt';
const VICTIM = 'wrt-2';

interface Saved {
  instances: Array<{ alertname: string; state: string; labels: Record<string, string> }>;
  dispatcher: { log: Record<string, { firing: string[]; at: number }> };
}

describe('alert state writes that fail', () => {
  const rig: { dir?: string; fleet?: SimFleet; daemon?: Daemon; receiver?: Server } = {};
  const notified: Notified[] = [];
  let stateDir = '';
  let blocker = '';
  const saved = () => JSON.parse(readFileSync(path.join(stateDir, ALERT_STATE_FILE), 'utf8')) as Saved;
  const text = async (p: string) => (await fetch(`${rig.daemon!.url}${p}`)).text();

  beforeAll(async () => {
    rig.dir = mkdtempSync(path.join(tmpdir(), 'lfe-state-retry-'));
    rig.fleet = await SimFleet.start(
      ['wrt-1', VICTIM].map((name) => ({ name, network: NETWORK, build: 'current' as const, peers: 5 })),
      { host: '127.0.0.1', layout: 'port-per-node', blockTimeMs: 500 },
    );
    const hook = await startWebhook(
      (b) =>
        void notified.push({
          at: Date.now(),
          status: b.status ?? '',
          nodes: (b.alerts ?? []).map((a) => a.labels.node ?? ''),
        }),
    );
    rig.receiver = hook.server;
    const alerting = nodeDownToWebhook(rig.dir, hook.url);
    stateDir = alerting.stateDir;
    // The atomic write's rename (files/atomicFile.ts) cannot replace a directory.
    blocker = path.join(stateDir, ALERT_STATE_FILE);
    const config = alertingFleetConfig(rig.fleet.nodes, {
      dir: rig.dir,
      network: NETWORK,
      intervalMs: 250,
      timeoutMs: 200,
      concurrency: 4,
      maxUpstreamSeries: 100,
      alerting,
    });
    // The components an operator runs: the status page shows the problem too.
    const logger = createLogger({ level: 'silent' });
    rig.daemon = await startDaemon(config, { logger, defaultMetrics: false, components: standardComponents(logger) });
    await waitFor('the first state file', async () => (rig.daemon!.ready() && saved().instances) || undefined, {
      timeoutMs: 10_000,
    });
  }, 30_000);

  afterAll(() => closeAlertingRig(rig));

  it('is retried until it succeeds, counted and shown meanwhile', async () => {
    rmSync(blocker);
    mkdirSync(blocker);
    await rig.fleet!.node(VICTIM).kill();
    await waitFor('the page', async () => notified.find((n) => n.status === 'firing'), { timeoutMs: 10_000 });
    const failures = await waitFor(
      'a counted failure',
      async () => {
        const line = (await text('/metrics'))
          .split('\n')
          .find((l) => l.startsWith('ledger_alert_state_write_failures_total '));
        return line && Number(line.split(' ')[1]) >= 1 ? line : undefined;
      },
      { timeoutMs: 10_000 },
    );
    expect(failures).toMatch(/ [1-9]\d*$/);
    const readyz = await fetch(`${rig.daemon!.url}/readyz`);
    expect(readyz.status).toBe(200);
    expect(await readyz.text()).toMatch(
      /^ready\nwarning: alert state not written since \S+ \(\d+ failed writes, retrying\): .*EISDIR/,
    );
    expect((JSON.parse(await text('/api/v1/nodes')) as { notices: string[] }).notices[0]).toMatch(
      /alert state not written since/,
    );
    expect(await text('/')).toMatch(/<p id="notices"[^>]*>alert state not written since/);
    // Nothing was written, and no temp file was left by the failed writes.
    expect(statSync(blocker).isDirectory()).toBe(true);
    expect(readdirSync(stateDir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    // Room comes back; the alert state does not change (the node stays down).
    rmSync(blocker, { recursive: true });
    await waitFor(
      'the retried write',
      async () => saved().instances.find((i) => i.state === 'firing' && i.labels.node === VICTIM),
      { timeoutMs: 15_000 },
    );
    const entries = Object.values(saved().dispatcher.log);
    expect(entries.some((e) => e.at > 0 && e.firing.length === 1)).toBe(true);
    await waitFor(
      '/readyz without the warning',
      async () => ((await text('/readyz')) === 'ready\n' ? true : undefined),
      { timeoutMs: 5_000 },
    );
    expect(notified.filter((n) => n.status === 'firing')).toHaveLength(1);
  }, 40_000);
});
