// The certificate expiry is the verified chain's, not every certificate's a node sends: a node
// serving a long chain with an expired cross-signed root (as AddTrust in 2020 and DST Root CA X3 in
// 2021) verifies through the short path to the trusted root, and the expiry shown is the earliest
// of the leaf, its intermediate and that root, never the expired cross-sign's.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/http/client.js';
import { Secrets } from '../../src/redact.js';
import {
  INTERMEDIATE_EXT,
  issue,
  makeCa,
  notAfterOf,
  selfSignedArgs,
  serverExt,
  signArgs,
  type Issued,
} from '../support/testCa.js';

let dir: string;
let root: Issued;
let intermediate: Issued;
let leaf: Issued;
let crossNotAfter: number;
let server: https.Server;
let url: string;

/** openssl run as if the date were `at` (faketime): how an expired certificate is made with OpenSSL 3.0. */
const opensslAt = (at: string, args: string[]) =>
  execFileSync('faketime', [at, 'openssl', ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lfe-tls-chain-'));
  root = makeCa(dir, 'root', 60);
  intermediate = issue(dir, 'root', 'intermediate', 45, INTERMEDIATE_EXT);
  leaf = issue(dir, 'intermediate', 'node', 30, serverExt('IP:127.0.0.1'));
  // An old root, long expired, and the new root's key and name cross-signed by it (expired too).
  opensslAt('2019-01-01 00:00:00', selfSignedArgs('old.key', 'old.crt', 365, '/CN=old-root'));
  execFileSync('openssl', ['req', '-new', '-key', 'root.key', '-subj', '/CN=root', '-out', 'cross.csr'], { cwd: dir });
  writeFileSync(join(dir, 'cross.ext'), INTERMEDIATE_EXT);
  opensslAt('2019-06-01 00:00:00', signArgs('cross', 'old', 180));
  crossNotAfter = notAfterOf(join(dir, 'cross.crt'));
  // The long chain: leaf, intermediate, the expired cross-sign of the root, the old root.
  const chain = ['node.crt', 'intermediate.crt', 'cross.crt', 'old.crt'].map((f) => readFileSync(join(dir, f), 'utf8'));
  server = https.createServer({ key: readFileSync(leaf.key), cert: chain.join('') }, (_req, res) => res.end('{}'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  rmSync(dir, { recursive: true, force: true });
});

describe('a node sending an expired cross-signed root in its chain', () => {
  it('verifies through the trusted root, and its expiry is the verified chain’s', async () => {
    expect(crossNotAfter).toBeLessThan(Date.now() / 1000);
    const c = new HttpClient({ secrets: new Secrets() });
    c.fitNodes([{ url, intervalMs: 1000, timeoutMs: 2000, tls: { caFile: root.cert } }]);
    try {
      const out = await c.send({ method: 'GET', url: `${url}/health`, timeoutMs: 3000, maxBytes: 1000 });
      expect(out.ok, JSON.stringify(out)).toBe(true);
      const verified = Math.min(leaf.notAfter, intermediate.notAfter, root.notAfter);
      expect(c.certExpiry(new URL(url).origin)).toBe(verified);
      expect(verified).toBe(leaf.notAfter);
    } finally {
      await c.close();
    }
  });
});
