// A receiver that accepts a notification with a large answer (an echo endpoint) has received
// it: one post, not one per groupInterval.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon/index.js';
import { SimFleet } from '../../src/sim/index.js';
import { waitFor } from '../support/processes.js';
import {
  alertingFleetConfig,
  closeAlertingRig,
  nodeDownToWebhook,
  startAlertingDaemon,
} from '../support/alertingDaemon.js';

const VICTIM = 'big-2';

describe('a 2xx answer larger than the answer cap', () => {
  const rig: { dir?: string; fleet?: SimFleet; daemon?: Daemon; receiver?: Server } = {};
  const posts: number[] = [];

  beforeAll(async () => {
    rig.dir = mkdtempSync(path.join(tmpdir(), 'lfe-large-2xx-'));
    rig.fleet = await SimFleet.start(
      ['big-1', VICTIM].map((name) => ({ name, network: 'big', build: 'current' as const, peers: 5 })),
      { host: '127.0.0.1', layout: 'port-per-node', blockTimeMs: 500 },
    );
    rig.receiver = createServer((req, res) => {
      if (req.method !== 'POST') return res.writeHead(204).end();
      posts.push(Date.now());
      req.resume();
      // 1 MiB of echo, far over the 64 KiB the sender reads.
      req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end(Buffer.alloc(1024 * 1024, 'e')));
    });
    await new Promise<void>((r) => rig.receiver!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(rig.receiver.address() as AddressInfo).port}/hook`;
    const config = alertingFleetConfig(rig.fleet.nodes, {
      dir: rig.dir,
      network: 'big',
      intervalMs: 250,
      timeoutMs: 200,
      concurrency: 4,
      maxUpstreamSeries: 100,
      alerting: nodeDownToWebhook(rig.dir, url),
    });
    rig.daemon = (await startAlertingDaemon(config)).daemon;
    await waitFor('the first poll round', async () => rig.daemon!.ready() || undefined, { timeoutMs: 10_000 });
  }, 30_000);

  afterAll(() => closeAlertingRig(rig));

  it('counts as delivered and is not posted again within the repeat interval', async () => {
    await rig.fleet!.node(VICTIM).kill();
    await waitFor('the first post', async () => posts[0], { timeoutMs: 10_000 });
    // groupInterval is 1 s: a failure would be posted again about every second.
    await new Promise((r) => setTimeout(r, 5_000));
    expect(posts).toHaveLength(1);
    const metrics = await (await fetch(`${rig.daemon!.url}/metrics`)).text();
    expect(metrics).toMatch(/^ledger_alert_notifications_total\{receiver="hook",result="success"\} 1$/m);
    expect(metrics).toMatch(/^ledger_alert_notifications_total\{receiver="hook",result="failure"\} 0$/m);
  }, 30_000);
});
