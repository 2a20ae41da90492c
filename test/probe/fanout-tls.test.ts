// Fan-out reads (the watch's, any registered fan-out probe) reach a node with the node's own TLS
// settings, as its probes do: a node behind a private CA, with mutual TLS and a serverName that
// differs from the URL's host, is up for probes and answers every fan-out read too.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import type { FanOutEntity } from '../../src/domain.js';
import { createLogger } from '../../src/logger.js';
import { fanOutComponent } from '../../src/probe/fanOutComponent.js';
import { parseBlockNumber } from '../../src/probes/parse.js';
import { registerProbe, unregisterProbe } from '../../src/probes/registry.js';
import type { FanOutProbe } from '../../src/probes/types.js';
import { startMtlsNode, type MtlsNode } from '../support/mtlsNode.js';
import { waitFor } from '../support/processes.js';
import { daemonConfig, target } from '../support/targets.js';

const entities = new Map<string, FanOutEntity>();
const networkEntity = (network: string): FanOutEntity => {
  let e = entities.get(network);
  if (!e) entities.set(network, (e = { key: network, network, label: 'network', id: network, params: [] }));
  return e;
};

/** One blockNumber read per network, through the fan-out path. */
const heightRead: FanOutProbe<number> = {
  target: 'entities',
  method: 'blockNumber',
  entities: (_config, fleet) => fleet.networks.map((n) => networkEntity(n.network)),
  intervalMs: () => 200,
  parse: (result) => parseBlockNumber(result),
  metrics: [{ name: 'ledger_test_fanout_height', help: 'Height read by the fan-out.', value: (h) => h }],
};

let dir: string;
let tlsNode: MtlsNode;
let daemon: Daemon;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lfe-fanout-tls-'));
  tlsNode = await startMtlsNode(dir, { san: 'DNS:node.internal', leafDays: 30 });
  const client = tlsNode.client;
  registerProbe('tlsHeightRead', heightRead);
  const node = target('tls-1', {
    url: tlsNode.url,
    network: 'mainnet',
    intervalMs: 500,
    timeoutMs: 2_000,
    rpcNamespace: 'claw',
    tls: { caFile: join(dir, 'ca.crt'), certFile: client.cert, keyFile: client.key, serverName: 'node.internal' },
  });
  daemon = await startDaemon(daemonConfig([node]), {
    logger: createLogger({ level: 'silent' }),
    evidence: false,
    defaultMetrics: false,
    components: [fanOutComponent({ tickMs: 50 })],
  });
}, 60_000);

afterAll(async () => {
  await daemon?.close();
  await tlsNode?.close();
  unregisterProbe('tlsHeightRead');
  rmSync(dir, { recursive: true, force: true });
});

describe('a node behind a private CA with mutual TLS and a serverName', () => {
  it('is up for probes and answers fan-out reads over its own TLS settings', { timeout: 30_000 }, async () => {
    const read = () => daemon.snapshot().fanOut?.get('tlsHeightRead')?.[0];
    await waitFor(
      'the node up and a fan-out read finished',
      () => {
        const s = daemon.snapshot();
        const r = read();
        return s.nodes[0]?.up === true && r !== undefined && (r.data !== undefined || r.consecutiveFailures >= 3);
      },
      { timeoutMs: 20_000, intervalMs: 50, context: () => JSON.stringify(read()) },
    );
    const r = read()!;
    expect(r.failures, JSON.stringify(r)).toMatchObject({ connect: 0 });
    expect(r.data).toBeGreaterThan(0);
    expect(r.servedBy).toBe('tls-1');
  });
});
