// Every answer of the exporter's server says x-content-type-options: nosniff, the JSON API among
// them: text a node supplied inside JSON must never be read as a page by a browser.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon/index.js';
import { SimFleet } from '../../src/sim/index.js';
import {
  alertingFleetConfig,
  closeAlertingRig,
  nodeDownToWebhook,
  startAlertingDaemon,
} from '../support/alertingDaemon.js';

describe('nosniff', () => {
  const rig: { dir?: string; fleet?: SimFleet; daemon?: Daemon } = {};

  beforeAll(async () => {
    rig.dir = mkdtempSync(path.join(tmpdir(), 'lfe-nosniff-'));
    rig.fleet = await SimFleet.start([{ name: 'ns-1', network: 'ns', build: 'current', peers: 5 }], {
      host: '127.0.0.1',
      blockTimeMs: 500,
    });
    const config = alertingFleetConfig(rig.fleet.nodes, {
      dir: rig.dir,
      network: 'ns',
      intervalMs: 500,
      timeoutMs: 400,
      concurrency: 2,
      maxUpstreamSeries: 100,
      alerting: nodeDownToWebhook(rig.dir, 'http://127.0.0.1:9/hook'),
    });
    rig.daemon = (await startAlertingDaemon(config)).daemon;
  }, 30_000);

  afterAll(() => closeAlertingRig(rig));

  it('is on the JSON answers under /api/ and on the others', async () => {
    for (const p of ['/api/alerts', '/api/evidence?limit=1', '/api/nope', '/metrics', '/healthz', '/']) {
      const res = await fetch(`${rig.daemon!.url}${p}`);
      await res.arrayBuffer();
      expect(res.headers.get('x-content-type-options'), p).toBe('nosniff');
    }
  });
});
