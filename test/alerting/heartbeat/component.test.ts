// The heartbeat joined to the real daemon over loopback: pings that follow polling and
// evaluation progress, and a reload that turns it off. The alert engine's part is played by the
// test (it reports evaluations).
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heartbeatComponent, type HeartbeatInputs } from '../../../src/alerting/heartbeat/component.js';
import { startDaemon, type Daemon } from '../../../src/daemon/index.js';
import { PROBE_NAMES } from '../../../src/domain.js';
import type { ExporterConfig } from '../../../src/config/exporterConfig.js';
import { createLogger } from '../../../src/logger.js';
import { SimFleet } from '../../../src/sim/index.js';
import { waitFor } from '../../support/processes.js';

const KEY = 'hb-check-key-canary-5521';
let fleet: SimFleet;
let daemon: Daemon;
let dir: string;
let hbServer: Server;
let pings = 0;
const logs: string[] = [];
let settings: HeartbeatInputs;
const watch = heartbeatComponent(() => settings);

function config(): ExporterConfig {
  return {
    listen: { host: '127.0.0.1', port: 0 },
    polling: { concurrency: 4, maxResponseBytes: 1 << 20, maxUpstreamSeries: 100 },
    nodes: fleet.nodes.map((n) => ({
      name: n.name,
      url: n.url,
      network: n.network,
      labels: {},
      intervalMs: 200,
      timeoutMs: 150,
      rpcNamespace: 'auto',
      probes: [...PROBE_NAMES],
      headers: {},
    })),
    networks: {},
    evidence: { dir: join(dir, 'evidence'), maxBytes: 1 << 20, maxAgeDays: 1 },
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lfe-watch-'));
  hbServer = createServer((req, res) => {
    if (req.url === `/ping/${KEY}`) pings++;
    res.writeHead(200).end('OK');
  });
  hbServer.listen(0, '127.0.0.1');
  await once(hbServer, 'listening');
  fleet = await SimFleet.start([{ name: 'val-eu-1', network: 'testnet', build: 'current' }], {
    layout: 'port-per-node',
    blockTimeMs: 1000,
  });
  settings = {
    evaluationIntervalMs: 100,
    heartbeat: {
      url: `http://127.0.0.1:${(hbServer.address() as AddressInfo).port}/ping/${KEY}`,
      method: 'GET',
      intervalMs: 150,
      timeoutMs: 1_000,
    },
  };
  const sink = new Writable({
    write(chunk, _e, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  daemon = await startDaemon(config(), {
    logger: createLogger({ level: 'info', destination: sink }),
    components: [watch],
    defaultMetrics: false,
  });
});

afterAll(async () => {
  await daemon?.close();
  await fleet?.close();
  hbServer?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function metrics(): Promise<string> {
  const res = await request(`${daemon.url}/metrics`);
  return res.body.text();
}

describe('heartbeat in the daemon', () => {
  it('pings while evaluation progresses, stops when it stalls, resumes after', async () => {
    const evaluating = setInterval(() => watch.evaluated(Date.now()), 50);
    try {
      await waitFor('heartbeat pings', () => pings >= 2, { timeoutMs: 10_000, intervalMs: 20 });
      const m = await metrics();
      const ts = Number(/^ledger_alert_heartbeat_last_success_timestamp_seconds (\S+)$/m.exec(m)?.[1]);
      expect(ts * 1000).toBeGreaterThan(Date.now() - 60_000);
    } finally {
      clearInterval(evaluating);
    }
    // Evaluation stalls: after its bound (3 x 100 ms) no more pings.
    await waitFor('heartbeat paused', () => logs.join('').includes('heartbeat paused: evaluation: no progress'), {
      timeoutMs: 10_000,
      intervalMs: 20,
    });
    const stalledAt = pings;
    await new Promise((r) => setTimeout(r, 600));
    expect(pings).toBe(stalledAt);
    const resumed = setInterval(() => watch.evaluated(Date.now()), 50);
    try {
      await waitFor('pings after evaluation resumes', () => pings > stalledAt, { timeoutMs: 10_000, intervalMs: 20 });
    } finally {
      clearInterval(resumed);
    }
    // The check key is a secret: never in the logs.
    expect(logs.join('')).not.toContain(KEY);
  });

  it('a reload without a heartbeat stops the pings and the metric', async () => {
    const evaluating = setInterval(() => watch.evaluated(Date.now()), 50);
    try {
      settings = { evaluationIntervalMs: 100 };
      // Reloaded just as a ping arrives: the next is an interval away, so none is on its way when the
      // heartbeat stops, and any ping the server gets from now on was sent after the reload.
      const seen = pings;
      await waitFor('a ping', () => pings > seen, { timeoutMs: 10_000, intervalMs: 1 });
      daemon.applyConfig(config());
      const after = pings;
      await new Promise((r) => setTimeout(r, 500));
      expect(pings).toBe(after);
      // prom-client keeps an unlabelled gauge's series: 0 means "no accepted ping" (none configured).
      expect(await metrics()).toMatch(/^ledger_alert_heartbeat_last_success_timestamp_seconds 0$/m);
    } finally {
      clearInterval(evaluating);
    }
  });
});
