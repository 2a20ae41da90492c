// Reloads that take the alerting section away and give it back while the first is still shutting
// alerting down (a notification in flight holds the drain): the second waits for the first, so
// alerting ends on, as the config says. Real daemon, simulated node, loopback receiver.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon/index.js';
import type { ExporterConfig } from '../../src/config/exporterConfig.js';
import type { SimFleet } from '../../src/sim/index.js';
import { startHeldAnswerRig, type HeldAnswerRig } from '../support/alertingDaemon.js';
import { waitFor } from '../support/processes.js';

const NODE = 'tg-1';
const HOLD_MS = 1500;

describe('alerting taken away and given back by two reloads', () => {
  let rig: HeldAnswerRig | undefined;
  let fleet: SimFleet;
  let daemon: Daemon;
  let config: ExporterConfig;

  beforeAll(async () => {
    // The first notification is answered late: shutting alerting down waits for it.
    rig = await startHeldAnswerRig({ name: NODE, network: 'tg', holdMs: HOLD_MS });
    ({ fleet, daemon, config } = rig);
  }, 60_000);

  afterAll(() => rig?.close());

  const alertsApi = async () =>
    (await (await fetch(`${daemon.url}/api/alerts`)).json()) as {
      enabled: boolean;
      alerts: Array<{ name: string; state: string }>;
    };

  it('ends with alerting on, evaluating again', { timeout: 60_000 }, async () => {
    await waitFor('first poll round', () => (daemon.ready() ? true : undefined), { timeoutMs: 20_000, intervalMs: 50 });
    await fleet.node(NODE).kill();
    await rig!.firstPost;
    const { alerting: _taken, ...without } = config;
    daemon.applyConfig(without);
    daemon.applyConfig(config);
    // Past the held answer, so the first reload's shutdown is over: until then the alerting being
    // shut down still answers, whatever comes next.
    await new Promise((r) => setTimeout(r, HOLD_MS + 500));
    const after = await waitFor(
      'alerting on again with the node down firing',
      async () => {
        const api = await alertsApi();
        return api.enabled && api.alerts.some((a) => a.name === 'LedgerNodeDown' && a.state === 'firing')
          ? api
          : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    expect(after.enabled).toBe(true);
  });
});
