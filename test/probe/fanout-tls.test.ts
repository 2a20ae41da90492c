// Fan-out reads (the watch's, any registered fan-out probe) reach a node with the node's own TLS
// settings, as its probes do: a node behind a private CA, with mutual TLS and a serverName that
// differs from the URL's host, is up for probes and answers every fan-out read too.
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import type { FanOutEntity } from '../../src/domain.js';
import { createLogger } from '../../src/logger.js';
import { fanOutComponent } from '../../src/probe/fanOutComponent.js';
import { parseBlockNumber } from '../../src/probes/parse.js';
import { registerProbe, unregisterProbe } from '../../src/probes/registry.js';
import type { FanOutProbe } from '../../src/probes/types.js';
import { SimFleet } from '../../src/sim/index.js';
import { waitFor } from '../support/processes.js';
import { daemonConfig, target } from '../support/targets.js';
import { CLIENT_EXT, issue, makeCa, serverExt } from '../support/testCa.js';

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
let fleet: SimFleet;
let terminator: tls.Server;
let daemon: Daemon;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lfe-fanout-tls-'));
  makeCa(dir, 'ca', 60);
  const leaf = issue(dir, 'ca', 'node', 30, serverExt('DNS:node.internal'));
  makeCa(dir, 'clients', 60);
  const client = issue(dir, 'clients', 'monitor', 30, CLIENT_EXT);
  fleet = await SimFleet.start([{ name: 'tls-1', network: 'mainnet', build: 'current' }], {
    host: '127.0.0.1',
    layout: 'port-per-node',
    blockTimeMs: 1000,
  });
  const upstream = new URL(fleet.nodes[0]!.url);
  terminator = tls.createServer(
    {
      key: readFileSync(leaf.key),
      cert: readFileSync(leaf.cert),
      ca: readFileSync(join(dir, 'clients.crt')),
      requestCert: true,
      rejectUnauthorized: true,
    },
    (socket) => {
      const up = net.connect(Number(upstream.port), upstream.hostname);
      socket.pipe(up).pipe(socket);
      socket.on('error', () => up.destroy());
      up.on('error', () => socket.destroy());
    },
  );
  await new Promise<void>((r) => terminator.listen(0, '127.0.0.1', r));
  const port = (terminator.address() as AddressInfo).port;
  registerProbe('tlsHeightRead', heightRead);
  const node = target('tls-1', {
    url: `https://127.0.0.1:${port}`,
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
  terminator?.close();
  await fleet?.close();
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
