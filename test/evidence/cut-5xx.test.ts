// A node (or the proxy in front of it) that answers 5xx and then stalls or drops its body: the
// probe fails as http_5xx, not as a timeout, and what arrived of the body is kept as evidence,
// marked partial.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import type { ExporterConfig } from '../../src/config/exporterConfig.js';
import { createLogger } from '../../src/logger.js';
import { waitFor } from '../support/processes.js';

describe('a 5xx whose body never completes', () => {
  let dir = '';
  let node: Server;
  let daemon: Daemon;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'lfe-cut-5xx-'));
    node = createServer((req, res) => {
      req.resume();
      // Headers and the start of a proxy's error page, then nothing (the exporter's deadline ends it).
      res
        .writeHead(503, { 'content-type': 'text/html', 'content-length': '4096' })
        .write('<html><h1>503 Service Unavailable</h1>');
    });
    await new Promise<void>((r) => node.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(node.address() as AddressInfo).port}/`;
    const config: ExporterConfig = {
      listen: { host: '127.0.0.1', port: 0 },
      polling: { concurrency: 2, maxResponseBytes: 1024 * 1024, maxUpstreamSeries: 500 },
      nodes: [
        {
          name: 'stall',
          url,
          network: 'main',
          labels: {},
          intervalMs: 500,
          timeoutMs: 300,
          rpcNamespace: 'auto',
          probes: ['health'],
          headers: {},
        },
      ],
      networks: {},
      evidence: { dir: path.join(dir, 'evidence'), maxBytes: 1024 * 1024, maxAgeDays: 1 },
    };
    daemon = await startDaemon(config, {
      logger: createLogger({ level: 'silent' }),
      defaultMetrics: false,
      components: [],
    });
  }, 30_000);

  afterAll(async () => {
    await daemon?.close();
    node?.closeAllConnections();
    await new Promise((r) => node?.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('fails as http_5xx and keeps the partial body as evidence', { timeout: 30_000 }, async () => {
    const records = await waitFor(
      'an evidence record',
      async () => {
        const body = (await (await fetch(`${daemon.url}/api/evidence?node=stall&limit=5`)).json()) as {
          records: Array<Record<string, unknown>>;
        };
        return body.records.length > 0 ? body.records : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    expect(records[0]).toMatchObject({ node: 'stall', status: 503, bodyTruncated: true });
    expect(String(records[0]!.body)).toBe('<html><h1>503 Service Unavailable</h1>');
    const m = await (await fetch(`${daemon.url}/metrics`)).text();
    expect(m).toMatch(
      /^ledger_probe_failures_total\{node="stall",network="main",probe="health",reason="http_5xx"\} [1-9]/m,
    );
    expect(m).not.toMatch(
      /^ledger_probe_failures_total\{node="stall",network="main",probe="health",reason="timeout"\} [1-9]/m,
    );
  });
});
