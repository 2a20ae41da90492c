import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import tls from 'node:tls';
import path from 'node:path';
import { createHttpServer, loadWebConfig, type WebConfig } from '../../src/web/webConfig.js';
import { hasOpenssl, selfSignedArgs } from '../support/testCa.js';
import { bcryptHash } from '../support/webAuth.js';

const OPENSSL = hasOpenssl();
if (!OPENSSL)
  console.warn('web-config tests: openssl CLI not found, TLS tests skipped (they need it to make a test certificate)');

let dir: string;
const PASSWORD = 'correct horse battery staple';
const HASH = bcryptHash(PASSWORD);

/** A self-signed EC certificate valid for 127.0.0.1, written as <name>.crt / <name>.key. */
function makeCert(name: string, cn: string): void {
  const [key, crt] = [path.join(dir, `${name}.key`), path.join(dir, `${name}.crt`)];
  const san = `subjectAltName=IP:127.0.0.1,DNS:${cn}`;
  execFileSync('openssl', selfSignedArgs(key, crt, 1, `/CN=${cn}`, '-addext', san), { stdio: 'ignore' });
}

async function writeWeb(name: string, text: string): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, text);
  return file;
}

async function loadError(name: string, text: string): Promise<string> {
  const file = await writeWeb(name, text);
  try {
    await loadWebConfig(file);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected loadWebConfig to fail');
}

async function serve(
  web: WebConfig | undefined,
  limits = {},
): Promise<{ server: http.Server | https.Server; port: number; close: () => Promise<void> }> {
  const server = createHttpServer(
    web,
    (req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`hello ${req.url}`);
    },
    limits,
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function get(url: string, opts: https.RequestOptions = {}): Promise<Answer> {
  const mod = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.get(url, { agent: false, ...opts }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
  });
}

const basic = (user: string, pw: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${pw}`).toString('base64')}`,
});

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'web-config-'));
  if (OPENSSL) {
    makeCert('server', '127.0.0.1');
    makeCert('client', 'scraper');
    makeCert('stranger', 'stranger');
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('loadWebConfig: invalid files are rejected clearly', () => {
  it('names an unknown key with file:line:col', async () => {
    const msg = await loadError(
      'unknown.yml',
      `basic_auth_users:\n  alice: ${HASH}\nbasic_auth_user:\n  bob: ${HASH}\n`,
    );
    expect(msg).toContain(`${path.join(dir, 'unknown.yml')}:3:1: basic_auth_user: unknown key`);
  });

  it('names a nested unknown key at its own line', async () => {
    const msg = await loadError(
      'nested.yml',
      'tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n  certfile: typo.crt\n',
    );
    expect(msg).toContain('nested.yml:4:3: tls_server_config.certfile: unknown key');
  });

  it('rejects a password that is not a bcrypt hash, without echoing it', async () => {
    const msg = await loadError('plain.yml', 'basic_auth_users:\n  alice: my-plaintext-password\n');
    expect(msg).toMatch(/plain\.yml:2:10: basic_auth_users\.alice: must be a bcrypt hash/);
    expect(msg).not.toContain('my-plaintext-password');
  });

  it('rejects bad TLS versions, header values and client auth types', async () => {
    const msg = await loadError(
      'enums.yml',
      'tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS14\n  client_auth_type: Sometimes\n' +
        'http_server_config:\n  headers:\n    X-Frame-Options: allow\n',
    );
    expect(msg).toMatch(/enums\.yml:4:16: tls_server_config\.min_version: .*TLS12/);
    expect(msg).toMatch(/enums\.yml:5:21: tls_server_config\.client_auth_type: .*RequireAndVerifyClientCert/);
    expect(msg).toMatch(/enums\.yml:8:22: http_server_config\.headers\.X-Frame-Options: must be deny or sameorigin/);
  });

  it('reports YAML syntax errors and duplicate keys with a position', async () => {
    expect(await loadError('syntax.yml', 'basic_auth_users:\n  alice: [unclosed\n')).toMatch(/syntax\.yml:\d+:\d+: /);
    expect(await loadError('dup.yml', `basic_auth_users:\n  alice: ${HASH}\n  alice: ${HASH}\n`)).toMatch(
      /dup\.yml:3:3: .*[Uu]nique/,
    );
  });

  it('requires both cert and key, and a readable file', async () => {
    expect(await loadError('nokey.yml', 'tls_server_config:\n  cert_file: server.crt\n')).toMatch(
      /nokey\.yml:1:1: tls_server_config: missing key_file/,
    );
    const msg = await loadError('missing.yml', 'tls_server_config:\n  cert_file: nope.crt\n  key_file: nope.key\n');
    expect(msg).toContain(
      `missing.yml:2:14: tls_server_config.cert_file: cannot read ${path.join(dir, 'nope.crt')}: ENOENT`,
    );
  });

  it('reports a missing web config file', async () => {
    await expect(loadWebConfig(path.join(dir, 'absent.yml'))).rejects.toThrow(
      /cannot read web config file .*absent\.yml: ENOENT/,
    );
  });

  it('treats an empty file as no protection, served over plain HTTP', async () => {
    const web = await loadWebConfig(await writeWeb('empty.yml', '# nothing configured\n'));
    expect(web).toEqual({});
    const srv = await serve(web);
    try {
      const a = await get(`http://127.0.0.1:${srv.port}/metrics`);
      expect(a.status).toBe(200);
      expect(a.body).toBe('hello /metrics');
    } finally {
      await srv.close();
    }
  });
});

describe('createHttpServer without TLS', () => {
  it('answers 401 with WWW-Authenticate until the right password is given', async () => {
    const web = await loadWebConfig(
      await writeWeb(
        'auth.yml',
        `basic_auth_users:\n  prometheus: ${HASH}\nhttp_server_config:\n  headers:\n    X-Content-Type-Options: ` +
          `nosniff\n`,
      ),
    );
    const srv = await serve(web);
    const url = `http://127.0.0.1:${srv.port}/metrics`;
    try {
      const none = await get(url);
      expect(none.status).toBe(401);
      expect(none.headers['www-authenticate']).toMatch(/^Basic realm=/);
      expect(none.body).not.toContain('hello');
      expect((await get(url, { headers: basic('prometheus', 'wrong') })).status).toBe(401);
      expect((await get(url, { headers: basic('someone', PASSWORD) })).status).toBe(401);
      const ok = await get(url, { headers: basic('prometheus', PASSWORD) });
      expect(ok.status).toBe(200);
      expect(ok.body).toBe('hello /metrics');
      expect(ok.headers['x-content-type-options']).toBe('nosniff');
    } finally {
      await srv.close();
    }
  });

  it('drops a client that never finishes its headers', async () => {
    const srv = await serve(undefined, {
      headersTimeoutMs: 200,
      requestTimeoutMs: 300,
      connectionsCheckingIntervalMs: 50,
    });
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        const sock = net.connect(srv.port, '127.0.0.1', () =>
          sock.write('GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: '),
        );
        let got = '';
        sock.on('data', (c) => (got += String(c)));
        sock.on('close', () => resolve(got));
        sock.on('error', reject);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      await srv.close();
    }
  });

  it('refuses oversized headers', async () => {
    const srv = await serve(undefined, { maxHeaderSize: 4096 });
    try {
      const a = await get(`http://127.0.0.1:${srv.port}/`, { headers: { 'x-big': 'a'.repeat(8000) } });
      expect(a.status).toBe(431);
    } finally {
      await srv.close();
    }
  });
});

describe.skipIf(!OPENSSL)('createHttpServer with TLS (node_exporter web.yml shape)', () => {
  it('serves HTTPS with basic auth from the documented file layout, relative paths beside web.yml', async () => {
    // The shape of exporter-toolkit's docs/web-configuration.md, as users write it for node_exporter.
    const file = await writeWeb(
      'web.yml',
      [
        '# TLS and basic authentication configuration example.',
        'tls_server_config:',
        '  cert_file: server.crt',
        '  key_file: server.key',
        '  client_auth_type: "NoClientCert"',
        '  min_version: "TLS12"',
        '',
        '# Usernames and hashed passwords that have full access to the web server via basic authentication.',
        'basic_auth_users:',
        `  alice: ${HASH}`,
        '',
        'http_server_config:',
        '  http2: true',
        '  headers:',
        '    Strict-Transport-Security: max-age=31536000',
        '',
      ].join('\n'),
    );
    const web = await loadWebConfig(file);
    expect(web.tls?.minVersion).toBe('TLSv1.2');
    expect(web.tls?.requestClientCert).toBe(false);
    expect(web.basicAuthUsers?.get('alice')).toBe(HASH);
    const ca = await readFile(path.join(dir, 'server.crt'));
    const srv = await serve(web);
    const url = `https://127.0.0.1:${srv.port}/metrics`;
    try {
      expect(srv.server).toBeInstanceOf(https.Server);
      expect((await get(url, { ca })).status).toBe(401);
      const ok = await get(url, { ca, headers: basic('alice', PASSWORD) });
      expect(ok.status).toBe(200);
      expect(ok.body).toBe('hello /metrics');
      expect(ok.headers['strict-transport-security']).toBe('max-age=31536000');
      // A client that does not trust the certificate fails the handshake.
      await expect(get(url, { headers: basic('alice', PASSWORD) })).rejects.toThrow(/self[- ]signed/i);
      // Plain HTTP to the TLS port gets no page.
      await expect(get(`http://127.0.0.1:${srv.port}/metrics`)).rejects.toThrow();
    } finally {
      await srv.close();
    }
  });

  it('maps Go cipher suite and curve names onto the TLS server', async () => {
    const web = await loadWebConfig(
      await writeWeb(
        'ciphers.yml',
        'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  max_version: TLS12\n  ' +
          'cipher_suites: [TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384]\n  curve_preferences: [CurveP384, ' +
          'CurveP256]\n  prefer_server_cipher_suites: true\n',
      ),
    );
    expect(web.tls?.ecdhCurve).toBe('P-384:P-256');
    const ca = await readFile(path.join(dir, 'server.crt'));
    const srv = await serve(web);
    try {
      const negotiated = await new Promise<{ cipher: string; protocol: string | null }>((resolve, reject) => {
        const sock = tls.connect({ host: '127.0.0.1', port: srv.port, ca, servername: undefined }, () => {
          resolve({ cipher: sock.getCipher().name, protocol: sock.getProtocol() });
          sock.end();
        });
        sock.on('error', reject);
      });
      expect(negotiated).toEqual({ cipher: 'ECDHE-ECDSA-AES256-GCM-SHA384', protocol: 'TLSv1.2' });
    } finally {
      await srv.close();
    }
    const msg = await loadError(
      'bad-cipher.yml',
      'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  cipher_suites: [TLS_RC4_FOREVER]\n',
    );
    expect(msg).toMatch(
      /bad-cipher\.yml:4:19: tls_server_config\.cipher_suites\.0: unknown cipher suite TLS_RC4_FOREVER/,
    );
  });

  it('rejects a key that does not belong to the certificate', async () => {
    const msg = await loadError(
      'mismatch.yml',
      'tls_server_config:\n  cert_file: server.crt\n  key_file: client.key\n',
    );
    expect(msg).toMatch(/mismatch\.yml:1:1: tls_server_config: TLS setup failed/);
  });

  it('refuses client CAs without a verifying client_auth_type', async () => {
    const msg = await loadError(
      'ca-only.yml',
      'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_ca_file: client.crt\n',
    );
    expect(msg).toMatch(
      /ca-only\.yml:4:19: tls_server_config\.client_ca_file: client CAs are configured but client_auth_type is NoClientCert/,
    );
    const msg2 = await loadError(
      'verify-no-ca.yml',
      'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_auth_type: ' +
        'RequireAndVerifyClientCert\n',
    );
    expect(msg2).toMatch(/needs client_ca_file/);
  });

  it('requires a client certificate signed by client_ca_file with RequireAndVerifyClientCert', async () => {
    const web = await loadWebConfig(
      await writeWeb(
        'mtls.yml',
        'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_ca_file: client.crt\n  ' +
          'client_auth_type: RequireAndVerifyClientCert\n',
      ),
    );
    const ca = await readFile(path.join(dir, 'server.crt'));
    const srv = await serve(web);
    const url = `https://127.0.0.1:${srv.port}/`;
    try {
      await expect(get(url, { ca })).rejects.toThrow();
      const stranger = {
        cert: await readFile(path.join(dir, 'stranger.crt')),
        key: await readFile(path.join(dir, 'stranger.key')),
      };
      await expect(get(url, { ca, ...stranger })).rejects.toThrow();
      const client = {
        cert: await readFile(path.join(dir, 'client.crt')),
        key: await readFile(path.join(dir, 'client.key')),
      };
      expect((await get(url, { ca, ...client })).status).toBe(200);
    } finally {
      await srv.close();
    }
  });

  it('with VerifyClientCertIfGiven, lets certificate-less clients in but not untrusted certificates', async () => {
    const web = await loadWebConfig(
      await writeWeb(
        'ifgiven.yml',
        'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_ca_file: client.crt\n  ' +
          'client_auth_type: VerifyClientCertIfGiven\n',
      ),
    );
    const ca = await readFile(path.join(dir, 'server.crt'));
    const srv = await serve(web);
    const url = `https://127.0.0.1:${srv.port}/`;
    try {
      expect((await get(url, { ca })).status).toBe(200);
      const stranger = {
        cert: await readFile(path.join(dir, 'stranger.crt')),
        key: await readFile(path.join(dir, 'stranger.key')),
      };
      await expect(get(url, { ca, ...stranger })).rejects.toThrow();
      const client = {
        cert: await readFile(path.join(dir, 'client.crt')),
        key: await readFile(path.join(dir, 'client.key')),
      };
      expect((await get(url, { ca, ...client })).status).toBe(200);
    } finally {
      await srv.close();
    }
  });

  it('checks client_allowed_sans against the verified client certificate', async () => {
    const write = (name: string, san: string) =>
      writeWeb(
        name,
        `tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_ca_file: client.crt\n  ` +
          `client_auth_type: RequireAndVerifyClientCert\n  client_allowed_sans: [${san}]\n`,
      );
    const ca = await readFile(path.join(dir, 'server.crt'));
    const client = {
      cert: await readFile(path.join(dir, 'client.crt')),
      key: await readFile(path.join(dir, 'client.key')),
    };
    const allowed = await serve(await loadWebConfig(await write('sans-ok.yml', 'scraper')));
    const denied = await serve(await loadWebConfig(await write('sans-no.yml', 'someone-else')));
    try {
      expect((await get(`https://127.0.0.1:${allowed.port}/`, { ca, ...client })).status).toBe(200);
      await expect(get(`https://127.0.0.1:${denied.port}/`, { ca, ...client })).rejects.toThrow();
    } finally {
      await allowed.close();
      await denied.close();
    }
  });
});
