// An https node behind a private CA with mutual TLS, polled by the whole daemon: the node is up,
// ledger_node_tls_cert_expiry_timestamp_seconds shows its certificate's expiry (read from the
// probes' own connections: the node sees no extra connection), the expiry alerts see it, and the
// client key never shows in logs, metrics, the status API or pages.
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findDefinition } from '../../src/alerting/rules/definitions/index.js';
import { parseConfig } from '../../src/config/index.js';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import { createLogger } from '../../src/logger.js';
import { statusComponent } from '../../src/status/component.js';
import { startMtlsNode, type MtlsNode } from '../support/mtlsNode.js';
import { waitFor } from '../support/processes.js';
import type { Issued } from '../support/testCa.js';

let dir: string;
let tlsNode: MtlsNode;
let daemon: Daemon;
let leaf: Issued;
let clientKeyBody: string[];
let handshakes = 0;
const KEY_CANARY = 'tls-key-canary-5d1e0b7a';
const logs: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lfe-tls-daemon-'));
  // TLS in front of the simulated node, asking for a client certificate of the clients CA.
  tlsNode = await startMtlsNode(dir, { san: 'IP:127.0.0.1', leafDays: 10, onConnection: () => handshakes++ });
  leaf = tlsNode.leaf;
  const client = tlsNode.client;
  // The key's base64 lines and a canary before its PEM block (text there is allowed and ignored
  // by PEM readers, so the key still works): none may show anywhere.
  const key = readFileSync(client.key, 'utf8');
  clientKeyBody = [KEY_CANARY, ...key.split('\n').filter((l) => l && !l.startsWith('-----'))];
  writeFileSync(client.key, `${KEY_CANARY}\n${key}`);
  const file = join(dir, 'fleet.yaml');
  writeFileSync(
    file,
    [
      'listen: 127.0.0.1:0',
      'defaults:',
      '  interval: 1s',
      '  timeout: 900ms',
      '  tls:',
      '    caFile: ca.crt',
      'nodes:',
      '  - name: tls-1',
      '    network: mainnet',
      `    url: ${tlsNode.url}`,
      '    tls:',
      '      certFile: monitor.crt',
      '      keyFile: monitor.key',
      '',
    ].join('\n'),
  );
  const config = parseConfig(readFileSync(file, 'utf8'), { file, env: {} });
  const sink = new Writable({ write: (chunk, _e, cb) => (logs.push(String(chunk)), cb()) });
  const logger = createLogger({ level: 'debug', destination: sink });
  daemon = await startDaemon(config, {
    logger,
    defaultMetrics: false,
    evidence: false,
    components: [statusComponent({ logger, version: 'test', file: false })],
  });
}, 60_000);

afterAll(async () => {
  await daemon?.close();
  await tlsNode?.close();
  rmSync(dir, { recursive: true, force: true });
});

const text = async (path: string) => (await fetch(daemon.url + path)).text();

describe('an https node behind a private CA with mutual TLS', () => {
  it("is polled up, with its certificate expiry from the probes' own connection", async () => {
    await waitFor(
      'tls-1 up with its certificate expiry',
      async () => {
        const m = await text('/metrics');
        return (
          m.includes('ledger_node_up{node="tls-1",network="mainnet"} 1') &&
          m.includes('ledger_node_tls_cert_expiry_timestamp_seconds{')
        );
      },
      { timeoutMs: 20_000, intervalMs: 250 },
    );
    const metrics = await text('/metrics');
    expect(metrics).toContain(
      `ledger_node_tls_cert_expiry_timestamp_seconds{node="tls-1",network="mainnet"} ${leaf.notAfter}`,
    );
    // Every probe of several rounds went over one kept-alive connection: no connection of its own for the expiry.
    const before = handshakes;
    await new Promise((r) => setTimeout(r, 2500));
    expect(handshakes).toBe(before);
    expect(handshakes).toBe(1);
  });

  it('feeds the certificate alerts: a warning at 10 days left, no critical', () => {
    const view = {
      name: 'tls-1',
      network: 'mainnet',
      labels: {},
      up: true,
      probes: [],
      values: { upstreamVersion: 0, tlsCertExpirySeconds: leaf.notAfter },
    };
    const evaluate = (name: string) => {
      const def = findDefinition(name)!;
      return def.evaluate!({
        snapshot: { nodes: [view], networks: [] },
        exporter: { pollOverruns: new Map(), evidenceWriteErrors: 0 },
        params: def.defaults,
        range: () => [],
        now: Date.now(),
      });
    };
    const warning = evaluate('LedgerNodeCertificateExpiring');
    expect(warning).toHaveLength(1);
    expect(warning[0]!.labels).toEqual({ node: 'tls-1', network: 'mainnet' });
    expect(warning[0]!.value).toBeGreaterThan(9.9);
    expect(warning[0]!.value).toBeLessThanOrEqual(10);
    expect(evaluate('LedgerNodeCertificateExpiringCritical')).toEqual([]);
  });

  it('never shows the client key: not in logs, metrics, the status API or pages', async () => {
    const outputs = [
      logs.join(''),
      await text('/metrics'),
      await text('/api/v1/nodes'),
      await text('/'),
      await text('/nodes/tls-1'),
      await text('/api/v1/nodes/tls-1'),
    ];
    expect(clientKeyBody.length).toBeGreaterThan(0);
    for (const out of outputs) {
      expect(out).not.toContain('PRIVATE KEY');
      for (const line of clientKeyBody) expect(out).not.toContain(line);
    }
    expect(logs.join('')).not.toContain('TLS failure');
  });
});
