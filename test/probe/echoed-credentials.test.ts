// A node (or its proxy) that echoes what it was sent (the x-api-key header, the URL's password)
// into its /health `version` and `chain_id` publishes nothing: those strings are scrubbed of the
// node's secrets before they are stored, so /metrics (ledger_node_info), /api/v1/nodes and the
// unauthenticated status page never show them.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import { createLogger } from '../../src/logger.js';
import { statusComponent } from '../../src/status/component.js';
import { waitFor } from '../support/processes.js';
import { daemonConfig, target } from '../support/targets.js';

const API_KEY = 'echoed-api-key-7c1f9e';
const PASSWORD = 'echoed-url-pass-52b0d4';

let node: Server;
let daemon: Daemon;

/** The password of the request's Basic credentials, as a proxy that logs them would see it. */
function basicPassword(req: IncomingMessage): string {
  const token = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
  return Buffer.from(token, 'base64').toString('utf8').split(':')[1] ?? '';
}

beforeAll(async () => {
  node = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      const key = String(req.headers['x-api-key'] ?? '');
      if (req.method === 'GET' && req.url === '/health')
        return res.end(
          JSON.stringify({
            status: 'ok',
            version: `0.5.8 (${key})`,
            chain_id: `ledger-${basicPassword(req)}`,
            genesis_hash: `0x${encodeURIComponent(key)}`,
            height: 100,
          }),
        );
      const id = (JSON.parse(body || '{}') as { id?: unknown }).id ?? 1;
      res.end(JSON.stringify({ jsonrpc: '2.0', id, result: '0x64' }));
    });
  });
  await new Promise<void>((r) => node.listen(0, '127.0.0.1', r));
  const port = (node.address() as AddressInfo).port;
  const n1 = target('n1', {
    url: `http://monitor:${PASSWORD}@127.0.0.1:${port}`,
    headers: { 'x-api-key': { value: API_KEY } },
    rpcNamespace: 'claw',
    probes: ['health', 'blockNumber'],
    intervalMs: 500,
    timeoutMs: 2_000,
  });
  const logger = createLogger({ level: 'silent' });
  daemon = await startDaemon(daemonConfig([n1]), {
    logger,
    evidence: false,
    defaultMetrics: false,
    components: [statusComponent({ logger, version: 'test', file: false })],
  });
}, 30_000);

afterAll(async () => {
  await daemon?.close();
  await new Promise((r) => node.close(r));
});

const text = async (path: string) => (await fetch(daemon.url + path)).text();

describe('a node echoing its credentials into /health', () => {
  it('has them scrubbed from version and chain_id everywhere they are shown', { timeout: 30_000 }, async () => {
    await waitFor('n1 health read', () => daemon.snapshot().nodes[0]?.values?.health?.version !== undefined, {
      timeoutMs: 15_000,
      intervalMs: 50,
    });
    const health = daemon.snapshot().nodes[0]!.values!.health!;
    expect(health.version).toBe('0.5.8 ([REDACTED])');
    expect(health.chainId).toBe('ledger-[REDACTED]');
    expect(health.genesisHash).toBe('0x[REDACTED]');
    const outputs = {
      metrics: await text('/metrics'),
      api: await text('/api/v1/nodes'),
      node: await text('/api/v1/nodes/n1'),
      page: await text('/'),
      nodePage: await text('/nodes/n1'),
    };
    expect(outputs.metrics).toMatch(/ledger_node_info\{[^}]*version="0\.5\.8 \(\[REDACTED\]\)"/);
    for (const [where, out] of Object.entries(outputs)) {
      expect(out, where).not.toContain(API_KEY);
      expect(out, where).not.toContain(PASSWORD);
    }
  });
});
