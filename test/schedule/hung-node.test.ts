// One hung node among many, through the real daemon over loopback: its requests run into their
// timeouts (five probes take several intervals), yet the exporter counts no poll overrun, so
// LedgerExporterPollOverrun cannot fire; the node is down, its own problem.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import { PROBE_NAMES, type NodeTarget } from '../../src/domain.js';
import { createLogger } from '../../src/logger.js';
import { sampleValue, scrapeText, waitForMetrics } from '../support/exporterChild.js';
import { defaultModel, hang, ledgerNode, startRawServer, type RawServer } from '../support/rawServers.js';

const INTERVAL_MS = 300;
const servers: RawServer[] = [];
let daemon: Daemon;
let dir: string;

function target(name: string, url: string): NodeTarget {
  return {
    name,
    url,
    network: 'main',
    labels: {},
    intervalMs: INTERVAL_MS,
    timeoutMs: INTERVAL_MS - 50,
    rpcNamespace: 'claw',
    probes: [...PROBE_NAMES],
    headers: {},
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lfe-hung-'));
  servers.push(await startRawServer(hang()));
  for (let i = 0; i < 8; i++) servers.push(await startRawServer(ledgerNode(defaultModel())));
  const nodes = servers.map((s, i) => target(i === 0 ? 'hung' : `ok-${i}`, s.url));
  daemon = await startDaemon(
    {
      listen: { host: '127.0.0.1', port: 0 },
      polling: { concurrency: 4, maxResponseBytes: 1 << 20, maxUpstreamSeries: 100 },
      nodes,
      networks: {},
      evidence: { dir: join(dir, 'evidence'), maxBytes: 8 << 20, maxAgeDays: 1 },
    },
    { logger: createLogger({ level: 'warn', destination: new Writable({ write: (_c, _e, cb) => cb() }) }) },
  );
});

afterAll(async () => {
  await daemon?.close();
  for (const s of servers) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('one hung node among many', () => {
  it('is down, and its timeouts are not counted as exporter poll overruns', async () => {
    await waitForMetrics(daemon.url, 'the hung node seen down', (t) =>
      sampleValue(t, 'ledger_node_up', { node: 'hung' }) === 0 ? t : undefined,
    );
    // Every poll of the hung node takes at least two timeouts (its liveness probes), longer than
    // its interval, so its ticks are skipped over and over while this runs.
    await new Promise((r) => setTimeout(r, 12 * INTERVAL_MS));
    const text = await scrapeText(daemon.url);
    for (const probe of PROBE_NAMES)
      expect(sampleValue(text, 'ledger_exporter_poll_overruns_total', { probe }), probe).toBe(0);
    for (let i = 1; i < servers.length; i++) expect(sampleValue(text, 'ledger_node_up', { node: `ok-${i}` })).toBe(1);
  });
});
