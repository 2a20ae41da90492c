// The real CLI (dist/cli.js) with `--web.config.file`: basic auth with a bcrypt hash, TLS with a
// self-signed certificate from the openssl CLI, clear start-up errors for bad web configs, and
// an HTTP server that resists abuse (slow clients, oversized requests, other methods).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimFleet } from '../../src/sim/index.js';
import { requireBuiltCli, runCli, startDaemonProcess, type DaemonProcess } from '../support/cliProcess.js';
import { hasOpenssl, makeSelfSignedCert, type SelfSignedCert } from '../support/testCa.js';
import { basicAuth, bcryptHash } from '../support/webAuth.js';

const USER = 'prometheus';
const PASSWORD = 'scrape-pass-7f3a:with colon';
const HASH = bcryptHash(PASSWORD);
const basic = (username: string, password: string) => basicAuth({ username, password }).authorization;

const OPENSSL = hasOpenssl();
if (!OPENSSL)
  console.warn(
    'web-cli: openssl CLI not found: the TLS test is skipped (it needs openssl to make a self-signed certificate)',
  );

let dir: string;
let fleet: SimFleet;
let configFile: string;
const running: DaemonProcess[] = [];

async function start(webYml: string, name: string): Promise<DaemonProcess> {
  const webFile = join(dir, name);
  await writeFile(webFile, webYml);
  const d = await startDaemonProcess(['--config', configFile, '--web.config.file', webFile, '--log-format', 'json'], {
    cwd: dir,
  });
  running.push(d);
  return d;
}

async function get(url: string, init: RequestInit = {}): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(5_000) });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** GET over https trusting only `ca`; resolves with status and body. */
function httpsGet(
  url: string,
  opts: { ca?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { ca: opts.ca, headers: opts.headers, agent: false, timeout: 5_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

/** Plain-HTTP GET; rejects when the connection fails. */
function httpGet(url: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, timeout: 5_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

beforeAll(async () => {
  requireBuiltCli();
  dir = await mkdtemp(join(tmpdir(), 'lfe-web-cli-'));
  fleet = await SimFleet.start([{ name: 'n1', network: 'main', build: 'current' }], { layout: 'port-per-node' });
  configFile = join(dir, 'config.yaml');
  await writeFile(
    configFile,
    `listen: 127.0.0.1:0
defaults:
  interval: 1s
  timeout: 500ms
nodes:
  - name: n1
    url: ${fleet.node('n1').url}
    network: main
evidence:
  dir: ./evidence
`,
  );
});

afterAll(async () => {
  await Promise.all(running.map((d) => d.stop(1_000)));
  await fleet?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('--web.config.file with basic_auth_users', () => {
  let d: DaemonProcess;
  beforeAll(async () => {
    d = await start(`basic_auth_users:\n  ${USER}: ${HASH}\n`, 'web-basic.yml');
  });

  it('answers 401 without or with wrong credentials, 200 with the right ones', async () => {
    expect(d.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const none = await get(`${d.url}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    expect(none.text).not.toContain('ledger_');
    expect((await get(`${d.url}/metrics`, { headers: { authorization: basic(USER, 'wrong') } })).status).toBe(401);
    expect((await get(`${d.url}/metrics`, { headers: { authorization: basic('nobody', PASSWORD) } })).status).toBe(401);
    expect((await get(`${d.url}/api/evidence`)).status).toBe(401);
    const ok = await get(`${d.url}/metrics`, { headers: { authorization: basic(USER, PASSWORD) } });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('ledger_exporter_build_info');
    // The password never shows in the logs.
    expect(d.stdout() + d.stderr()).not.toContain(PASSWORD);
  });

  it('answers 405 with Allow to methods other than GET and HEAD', async () => {
    const auth = { authorization: basic(USER, PASSWORD) };
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const r = await get(`${d.url}/metrics`, { method, headers: auth, body: method === 'DELETE' ? undefined : 'x=1' });
      expect(r.status, method).toBe(405);
      expect(r.headers.get('allow')).toBe('GET, HEAD');
    }
    const head = await get(`${d.url}/metrics`, { method: 'HEAD', headers: auth });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
  });

  it('bounds the request: over-long query 414, bad evidence parameters 400, oversized headers 431', async () => {
    const auth = { authorization: basic(USER, PASSWORD) };
    const long = await get(`${d.url}/metrics?${'a=1&'.repeat(1000)}`, { headers: auth });
    expect(long.status).toBe(414);
    expect((await get(`${d.url}/api/evidence?limit=${'9'.repeat(12)}`, { headers: auth })).status).toBe(400);
    expect((await get(`${d.url}/api/evidence?limit=-1`, { headers: auth })).status).toBe(400);
    // A path in a parameter never reaches the filesystem: it is not a node name.
    const traversal = await get(`${d.url}/api/evidence?node=${encodeURIComponent('../../../etc/passwd')}`, {
      headers: auth,
    });
    expect(traversal.status).toBe(400);
    expect(traversal.text).not.toContain('root:');
    const big = await get(`${d.url}/metrics`, { headers: { ...auth, 'x-filler': 'f'.repeat(32 * 1024) } });
    expect(big.status).toBe(431);
    // The server is still fine afterwards.
    expect((await get(`${d.url}/metrics`, { headers: auth })).status).toBe(200);
  });

  it('cuts off a client that trickles its headers', async () => {
    const { port } = new URL(d.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    socket.on('data', (c: Buffer) => (received += c.toString('latin1')));
    socket.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(`GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${basic(USER, PASSWORD)}\r\nX-Slow: `);
    // One byte every 300 ms, never finishing the headers; bounded to 30 s of trickle.
    let sent = 0;
    const timer = setInterval(() => {
      if (socket.destroyed || sent >= 100) return clearInterval(timer);
      sent++;
      socket.write('a');
    }, 300);
    const outcome = await Promise.race([
      closed.then(() => 'closed' as const),
      new Promise<'still open'>((r) => setTimeout(() => r('still open'), 28_000).unref()),
    ]);
    clearInterval(timer);
    socket.destroy();
    expect(outcome).toBe('closed');
    // Node's headersTimeout answers 408 and closes; never the metrics.
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(received).not.toContain('ledger_exporter_build_info');
    expect(sent).toBeLessThan(100);
  }, 40_000);
});

describe('--web.config.file with tls_server_config', () => {
  let cert: SelfSignedCert | undefined;
  let d: DaemonProcess;
  beforeAll(async () => {
    if (!OPENSSL) return;
    cert = makeSelfSignedCert();
    await writeFile(join(dir, 'tls.crt'), cert.cert);
    await writeFile(join(dir, 'tls.key'), cert.key);
    // Relative paths resolve beside web.yml, as in exporter-toolkit.
    d = await start(
      `tls_server_config:\n  cert_file: tls.crt\n  key_file: tls.key\nbasic_auth_users:\n  ${USER}: ${HASH}\n`,
      'web-tls.yml',
    );
  });
  afterAll(() => cert?.cleanup());

  it.skipIf(!OPENSSL)(
    'serves https: the scrape works with the CA, fails without it, and plain http fails',
    async () => {
      expect(d.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const auth = { authorization: basic(USER, PASSWORD) };
      const ok = await httpsGet(`${d.url}/metrics`, { ca: cert!.cert, headers: auth });
      expect(ok.status).toBe(200);
      expect(ok.text).toContain('ledger_exporter_build_info');
      expect((await httpsGet(`${d.url}/metrics`, { ca: cert!.cert })).status).toBe(401);
      // Without trusting the self-signed certificate the client refuses the server.
      await expect(httpsGet(`${d.url}/metrics`, { headers: auth })).rejects.toThrow(/self[- ]signed|certificate/i);
      // Plain http to the TLS port: the TLS server drops what is not a handshake.
      await expect(httpGet(`${d.url.replace('https:', 'http:')}/metrics`)).rejects.toThrow(
        /socket hang up|ECONNRESET|EPIPE/,
      );
      // The https side still serves after that.
      expect((await httpsGet(`${d.url}/metrics`, { ca: cert!.cert, headers: auth })).status).toBe(200);
    },
  );
});

describe('a bad web config stops start-up with a clear error', () => {
  const cases: Array<[string, string, RegExp]> = [
    [
      'plaintext password instead of a bcrypt hash',
      `basic_auth_users:\n  ${USER}: ${PASSWORD.replace(':', '-')}\n`,
      /web-bad\.yml:2:\d+: .*bcrypt/,
    ],
    [
      'unknown key',
      `basic_auth_users:\n  ${USER}: ${HASH}\ntls_config:\n  cert_file: x\n`,
      /web-bad\.yml:3:\d+: .*unknown key/,
    ],
    [
      'missing key file',
      'tls_server_config:\n  cert_file: nope.crt\n',
      /web-bad\.yml:\d+:\d+: .*(missing key_file|cannot read)/,
    ],
    [
      'unreadable certificate file',
      'tls_server_config:\n  cert_file: nope.crt\n  key_file: nope.key\n',
      /web-bad\.yml:\d+:\d+: .*cannot read .*nope\.(crt|key)/,
    ],
    ['YAML syntax error', 'basic_auth_users: [\n', /web-bad\.yml:\d+:\d+: /],
  ];
  for (const [what, yml, expected] of cases) {
    it(what, async () => {
      const webFile = join(dir, 'web-bad.yml');
      await writeFile(webFile, yml);
      const r = await runCli(['--config', configFile, '--web.config.file', webFile, '--log-format', 'json'], {
        cwd: dir,
      });
      expect(r.code, r.stdout + r.stderr).toBe(1);
      expect(r.signal).toBeNull();
      expect(r.stderr).toMatch(expected);
      // Nothing was served: the daemon never got as far as listening.
      expect(r.stdout).not.toContain('exporter listening');
      // A password written where a hash belongs is not echoed back.
      expect(r.stdout + r.stderr).not.toContain(PASSWORD.replace(':', '-'));
    });
  }

  it('a missing web config file', async () => {
    const r = await runCli(['--config', configFile, '--web.config.file', join(dir, 'absent.yml')], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot read web config file .*absent\.yml: ENOENT/);
  });
});
