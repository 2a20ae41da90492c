// Per-origin TLS client settings over real loopback https servers with certificates of a test CA
// made by openssl: caFile, mutual TLS, serverName, insecureSkipVerify, files re-read when they
// change, and the earliest expiry of the presented chain read from the probes' own connection.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TlsSettings } from '../../src/domain.js';
import { HttpClient } from '../../src/http/client.js';
import { Secrets } from '../../src/redact.js';
import { CLIENT_EXT, INTERMEDIATE_EXT, issue, makeCa, serverExt, type Issued } from '../support/testCa.js';

let dir: string;
let root: Issued;
let intermediate: Issued;
let leaf: Issued;
let otherLeaf: Issued;
let client: Issued;
const servers: https.Server[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'lfe-tls-'));
  root = makeCa(dir, 'root', 60);
  // The intermediate expires before the leaf: the chain's earliest expiry is the intermediate's.
  intermediate = issue(dir, 'root', 'intermediate', 9, INTERMEDIATE_EXT);
  leaf = issue(dir, 'intermediate', 'node', 20, serverExt('IP:127.0.0.1,DNS:node.internal'));
  makeCa(dir, 'other', 60);
  otherLeaf = issue(dir, 'other', 'other-node', 30, serverExt('IP:127.0.0.1,DNS:node.internal'));
  makeCa(dir, 'clients', 60);
  client = issue(dir, 'clients', 'monitor', 30, CLIENT_EXT);
});

afterAll(async () => {
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  rmSync(dir, { recursive: true, force: true });
});

/**
 * An https node presenting `leaf` and its intermediate (or `cert` alone); with `clientCa`, it requires a client
 * certificate.
 */
async function httpsNode(
  opts: { cert?: Issued; clientCa?: string } = {},
): Promise<{ url: string; server: https.Server }> {
  const cert = opts.cert ?? leaf;
  const chain =
    cert === leaf
      ? readFileSync(leaf.cert, 'utf8') + readFileSync(intermediate.cert, 'utf8')
      : readFileSync(cert.cert, 'utf8');
  const server = https.createServer(
    {
      key: readFileSync(cert.key),
      cert: chain,
      ...(opts.clientCa ? { requestCert: true, rejectUnauthorized: true, ca: readFileSync(opts.clientCa) } : {}),
    },
    (req, res) =>
      res.end(
        JSON.stringify({
          status: 'ok',
          client: (req.socket as import('node:tls').TLSSocket).getPeerCertificate().subject?.CN ?? null,
        }),
      ),
  );
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function clientFor(url: string, tls?: TlsSettings): HttpClient {
  const c = new HttpClient({ secrets: new Secrets() });
  c.fitNodes([{ url, intervalMs: 1000, timeoutMs: 2000, tls }]);
  return c;
}

const get = (c: HttpClient, url: string) =>
  c.send({ method: 'GET', url: `${url}/health`, timeoutMs: 3000, maxBytes: 10_000 });

describe('TLS client settings per origin', () => {
  it('trusts a node whose chain leads to caFile, and reads the earliest expiry of the chain it presents', async () => {
    const { url } = await httpsNode();
    const c = clientFor(url, { caFile: root.cert });
    try {
      const out = await get(c, url);
      expect(out.ok).toBe(true);
      expect(c.certExpiry(new URL(url).origin)).toBe(intermediate.notAfter);
      expect(intermediate.notAfter).toBeLessThan(leaf.notAfter);
    } finally {
      await c.close();
    }
  });

  it('refuses a chain outside caFile as a TLS failure, and still shows its expiry', async () => {
    const { url } = await httpsNode({ cert: otherLeaf });
    const c = clientFor(url, { caFile: root.cert });
    try {
      const out = await get(c, url);
      expect(out).toMatchObject({ ok: false, reason: 'connect' });
      expect(!out.ok && out.message).toMatch(
        /^TLS failure talking to https:\/\/127\.0\.0\.1:\d+\/: (UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)$/,
      );
      expect(c.certExpiry(new URL(url).origin)).toBe(otherLeaf.notAfter);
    } finally {
      await c.close();
    }
  });

  it('refuses a private CA without caFile, and accepts any chain with insecureSkipVerify', async () => {
    const { url } = await httpsNode();
    const plain = clientFor(url);
    const insecure = clientFor(url, { insecureSkipVerify: true });
    try {
      expect(await get(plain, url)).toMatchObject({ ok: false, reason: 'connect' });
      expect(await get(insecure, url)).toMatchObject({ ok: true });
    } finally {
      await plain.close();
      await insecure.close();
    }
  });

  it('checks the certificate against serverName instead of the URL host', async () => {
    const { url } = await httpsNode();
    const localhostUrl = url.replace('127.0.0.1', 'localhost');
    const byHost = clientFor(localhostUrl, { caFile: root.cert });
    const byName = clientFor(localhostUrl, { caFile: root.cert, serverName: 'node.internal' });
    try {
      const refused = await get(byHost, localhostUrl);
      expect(refused).toMatchObject({ ok: false, reason: 'connect' });
      expect(!refused.ok && refused.message).toContain('ERR_TLS_CERT_ALTNAME_INVALID');
      expect(await get(byName, localhostUrl)).toMatchObject({ ok: true });
    } finally {
      await byHost.close();
      await byName.close();
    }
  });

  it('presents certFile and keyFile to a node that requires a client certificate (mutual TLS)', async () => {
    const { url } = await httpsNode({ clientCa: join(dir, 'clients.crt') });
    const without = clientFor(url, { caFile: root.cert });
    const withCert = clientFor(url, { caFile: root.cert, certFile: client.cert, keyFile: client.key });
    try {
      expect((await get(without, url)).ok).toBe(false);
      const out = await get(withCert, url);
      expect(out.ok && JSON.parse(out.response.body.toString())).toEqual({ status: 'ok', client: 'monitor' });
    } finally {
      await without.close();
      await withCert.close();
    }
  });

  it('reads a changed caFile again: a rotated node certificate is trusted once its CA is in the file', async () => {
    const caFile = join(dir, 'rotating-ca.crt');
    copyFileSync(root.cert, caFile);
    const first = await httpsNode();
    const c = clientFor(first.url, { caFile });
    try {
      expect((await get(c, first.url)).ok).toBe(true);
      // The node now presents a certificate of the other CA (same origin: a new server on the same port).
      const port = Number(new URL(first.url).port);
      first.server.closeAllConnections();
      await new Promise((r) => first.server.close(r));
      const rotated = https.createServer(
        { key: readFileSync(otherLeaf.key), cert: readFileSync(otherLeaf.cert) },
        (_q, res) => res.end('{}'),
      );
      servers.push(rotated);
      await new Promise<void>((r) => rotated.listen(port, '127.0.0.1', r));
      expect((await get(c, first.url)).ok).toBe(false);
      writeFileSync(caFile, readFileSync(join(dir, 'other.crt')));
      rotated.closeAllConnections();
      expect((await get(c, first.url)).ok).toBe(true);
      expect(c.certExpiry(new URL(first.url).origin)).toBe(otherLeaf.notAfter);
    } finally {
      await c.close();
    }
  });

  it('takes new settings at a reload: a new pool, no socket of the old settings used again', async () => {
    const { url } = await httpsNode();
    const c = clientFor(url, { insecureSkipVerify: true });
    try {
      expect((await get(c, url)).ok).toBe(true);
      // The kept-alive socket was accepted without checks; the new settings check, so they must not reuse it.
      c.fitNodes([{ url, intervalMs: 1000, timeoutMs: 2000, tls: { caFile: join(dir, 'other.crt') } }]);
      expect(await get(c, url)).toMatchObject({ ok: false, reason: 'connect' });
      c.fitNodes([{ url, intervalMs: 1000, timeoutMs: 2000, tls: { caFile: root.cert } }]);
      expect((await get(c, url)).ok).toBe(true);
    } finally {
      await c.close();
    }
  });

  it('names an unreadable key file and its error code, never its content', async () => {
    const { url } = await httpsNode({ clientCa: join(dir, 'clients.crt') });
    const canary = 'KEY-CANARY-7f3a9c';
    const badKey = join(dir, 'bad.key');
    writeFileSync(badKey, `-----BEGIN PRIVATE KEY-----\n${canary}\n-----END PRIVATE KEY-----\n`);
    const missing = clientFor(url, { caFile: root.cert, certFile: client.cert, keyFile: join(dir, 'nope.key') });
    const garbled = clientFor(url, { caFile: root.cert, certFile: client.cert, keyFile: badKey });
    try {
      const a = await get(missing, url);
      expect(a).toMatchObject({ ok: false, reason: 'connect' });
      expect(!a.ok && a.message).toMatch(/TLS failure talking to https:\/\/127\.0\.0\.1:\d+\/: TLS_KEYFILE_ENOENT$/);
      const b = await get(garbled, url);
      expect(b).toMatchObject({ ok: false, reason: 'connect' });
      expect(!b.ok && b.message).toMatch(
        /TLS failure talking to https:\/\/127\.0\.0\.1:\d+\/: TLS_FILES_ERR_OSSL_\w+$/,
      );
      expect(JSON.stringify(b)).not.toContain(canary);
      expect(JSON.stringify(b)).not.toContain('BEGIN PRIVATE KEY');
    } finally {
      await missing.close();
      await garbled.close();
    }
  });
});
