// A node that renews its certificate in place (Node's setSecureContext, as nginx, Caddy and Envoy
// reload) while the probes keep their keep-alive connection: the expiry is read again on a fresh
// handshake of its own, hourly while the expiry is within the warning window and daily otherwise,
// and the probes' connection is never replaced.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeTarget, NodeValues } from '../../src/domain.js';
import { certExpiryListener } from '../../src/http/certExpiry.js';
import { HttpClient } from '../../src/http/client.js';
import { createDispatcher } from '../../src/http/dispatcher.js';
import { Secrets } from '../../src/redact.js';
import { waitFor } from '../support/processes.js';
import { issue, makeCa, serverExt, type Issued } from '../support/testCa.js';

const HOUR = 3_600_000;

let dir: string;
let before: Issued;
let renewed: Issued;
let server: https.Server;
let url: string;
/** Connections the node accepted (a re-check's may close before the node sees its handshake end). */
let handshakes = 0;
let secured = 0;
const socketIds = new WeakMap<TLSSocket, number>();
const requestSockets: number[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lfe-cert-renewal-'));
  makeCa(dir, 'ca', 90);
  before = issue(dir, 'ca', 'before', 2, serverExt('IP:127.0.0.1'));
  renewed = issue(dir, 'ca', 'renewed', 60, serverExt('IP:127.0.0.1'));
  server = https.createServer({ key: readFileSync(before.key), cert: readFileSync(before.cert) }, (req, res) => {
    requestSockets.push(socketIds.get(req.socket as TLSSocket) ?? -1);
    res.end('{}');
  });
  server.on('connection', () => handshakes++);
  server.on('secureConnection', (s: TLSSocket) => socketIds.set(s, ++secured));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  rmSync(dir, { recursive: true, force: true });
});

describe('a certificate renewed in place', () => {
  it('is read again on a fresh handshake when due, while the probes keep their connection', async () => {
    let now = 0;
    const dispatcher = createDispatcher({ now: () => now });
    const client = new HttpClient({ secrets: new Secrets(), dispatcher });
    client.fitNodes([{ url, intervalMs: 1000, timeoutMs: 2000, tls: { caFile: join(dir, 'ca.crt') } }]);
    const listen = certExpiryListener(client);
    const target = { url } as NodeTarget;
    const node = {} as NodeValues;
    const poll = async () => {
      const out = await client.send({ method: 'GET', url: `${url}/health`, timeoutMs: 3000, maxBytes: 1000 });
      expect(out.ok).toBe(true);
      listen(target, undefined, node);
    };
    try {
      await poll();
      expect(node.tlsCertExpirySeconds).toBe(before.notAfter);
      server.setSecureContext({ key: readFileSync(renewed.key), cert: readFileSync(renewed.cert) });
      // Not due yet: the old expiry stands, no handshake is made.
      now += 30 * 60_000;
      await poll();
      expect(node.tlsCertExpirySeconds).toBe(before.notAfter);
      expect(handshakes).toBe(1);
      // Two days left (within the warning window): re-checked after an hour.
      now += 31 * 60_000;
      await poll();
      await waitFor('the renewed certificate read', () => client.certExpiry(new URL(url).origin) === renewed.notAfter, {
        timeoutMs: 5_000,
      });
      await poll();
      expect(node.tlsCertExpirySeconds).toBe(renewed.notAfter);
      expect(handshakes).toBe(2);
      // Sixty days left: the next re-check only a day after the last reading.
      now += 2 * HOUR;
      await poll();
      expect(handshakes).toBe(2);
      now += 23 * HOUR;
      await poll();
      await waitFor('the daily re-check', () => handshakes === 3, { timeoutMs: 5_000 });
      await poll();
      // Every request went over the probes' first connection: keep-alive was never given up.
      expect(new Set(requestSockets)).toEqual(new Set([1]));
    } finally {
      await client.close();
      await dispatcher.destroy();
    }
  });
});
