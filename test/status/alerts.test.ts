// The status page's alerts (/api/v1/nodes `alerts`, what the fleet page lists) are the built-in
// engine's active alerts: the same names, states, labels and summaries as /api/alerts, with the
// severity label and the time since firing (or pending) as the page shows them.
import type { Server } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import { standardComponents } from '../../src/daemon/features.js';
import { createLogger } from '../../src/logger.js';
import { SimFleet } from '../../src/sim/index.js';
import { alertingFleetConfig, closeAlertingRig, nodeDownToWebhook, startWebhook } from '../support/alertingDaemon.js';
import { waitFor } from '../support/processes.js';

interface ListedAlert {
  name: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: string;
  activeAt: string;
  firingSince?: string;
}
interface StatusAlert {
  name: string;
  severity: string;
  state: string;
  labels: Record<string, string>;
  summary?: string;
  since?: number;
}

describe('alerts on the status page', () => {
  let dir = '';
  let fleet: SimFleet;
  let daemon: Daemon;
  let hook: Server;
  const started = Date.now();

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'lfe-status-alerts-'));
    fleet = await SimFleet.start(
      [
        { name: 'sa-down', network: 'sa', build: 'current', peers: 5 },
        { name: 'sa-up', network: 'sa', build: 'current', peers: 5 },
      ],
      { host: '127.0.0.1', layout: 'port-per-node', blockTimeMs: 500 },
    );
    fleet.node('sa-down').setFault('down');
    let hookUrl = '';
    ({ server: hook, url: hookUrl } = await startWebhook(() => undefined));
    const alerting = nodeDownToWebhook(dir, hookUrl);
    const config = alertingFleetConfig(fleet.nodes, {
      dir,
      network: 'sa',
      intervalMs: 300,
      timeoutMs: 250,
      concurrency: 4,
      maxUpstreamSeries: 500,
      alerting,
    });
    const logger = createLogger({ level: 'silent' });
    daemon = await startDaemon(config, { logger, defaultMetrics: false, components: standardComponents(logger) });
  }, 60_000);

  afterAll(() => closeAlertingRig({ daemon, fleet, receiver: hook, dir }));

  const getJson = async <T>(p: string): Promise<T> => (await (await fetch(daemon.url + p)).json()) as T;

  it('lists the firing alert of the engine with its severity, summary and firing time', async () => {
    const firing = await waitFor(
      'LedgerNodeDown to fire for sa-down',
      async () => {
        const { alerts } = await getJson<{ alerts: ListedAlert[] }>('/api/alerts');
        return alerts.find((a) => a.name === 'LedgerNodeDown' && a.labels.node === 'sa-down' && a.state === 'firing');
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    const { alerts } = await getJson<{ alerts: StatusAlert[] | null }>('/api/v1/nodes');
    const shown = alerts?.find((a) => a.name === 'LedgerNodeDown' && a.labels.node === 'sa-down');
    expect(shown).toEqual({
      name: 'LedgerNodeDown',
      severity: firing.labels.severity,
      state: 'firing',
      labels: firing.labels,
      summary: firing.annotations.summary,
      since: Date.parse(firing.firingSince!),
    });
    expect(firing.labels.severity).toMatch(/^(critical|warning)$/);
    expect(shown!.summary).toContain('sa-down');
    expect(shown!.since).toBeGreaterThanOrEqual(started);
    expect(shown!.since).toBeLessThanOrEqual(Date.now());
    expect(alerts!.some((a) => a.labels.node === 'sa-up')).toBe(false);
  }, 40_000);
});
