// Who may write, over real loopback HTTP through the server's own basic auth: a basic-auth user
// listed in alerting.api.writers (absent: every user); anonymous 401, others 403, no basic auth
// 403 naming the settings; a browser write (Origin / Sec-Fetch-Site) must be same-origin and carry
// the token GET /api/v1/session hands the signed-in page; amtool-like clients need no token.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/logger.js';
import type { MetricsView } from '../../src/metrics/view.js';
import { buildServer, createRequestHandler } from '../../src/server.js';
import type { FleetSnapshot } from '../../src/state/snapshot.js';
import { jsonReply, write } from '../../src/web/route.js';
import { WriteTokens } from '../../src/web/writeAccess.js';
import { basicAuth, userHashes } from '../support/webAuth.js';

const basic = (username: string, password: string) => basicAuth({ username, password }).authorization;
const USERS = userHashes([
  { username: 'alice', password: 'alice-pw' },
  { username: 'bob', password: 'bob-pw' },
]);
const ALICE = basic('alice', 'alice-pw');
const BOB = basic('bob', 'bob-pw');

let server: Server | undefined;
const acted: string[] = [];

async function start(users: Map<string, string> | undefined, writers: string[] | undefined): Promise<string> {
  const handler = createRequestHandler({
    logger: createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, cb) => cb() }) }),
    version: 'test',
    metrics: () => ({}) as MetricsView,
    ready: () => true,
    snapshot: () => ({ nodes: [] }) as unknown as FleetSnapshot,
    routes: [
      write(
        'POST',
        '/api/v1/alerts/ack',
        (req) => {
          acted.push(req.user);
          return jsonReply(200, { by: req.user });
        },
        { kind: 'json' },
      ),
    ],
    writePolicy: { users, writers: () => writers, tokens: new WriteTokens() },
  });
  server = buildServer(users ? { basicAuthUsers: users } : undefined, handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  acted.length = 0;
  const s = server;
  server = undefined;
  if (!s) return;
  s.closeAllConnections();
  await new Promise((resolve) => s.close(resolve));
});

async function ack(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/api/v1/alerts/ack`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ fingerprint: 'abc' }),
  });
  return { status: res.status, text: await res.text(), auth: res.headers.get('www-authenticate') };
}

describe('write access', () => {
  it('refuses every write with 403 naming the settings when basic auth is off', async () => {
    const url = await start(undefined, undefined);
    const r = await ack(url);
    expect(r.status).toBe(403);
    expect(r.text).toContain('basic_auth_users');
    expect(r.text).toContain('--web.config.file');
    expect(r.text).toContain('alerting.api.writers');
    expect(acted).toEqual([]);
    const session: unknown = await (await fetch(`${url}/api/v1/session`)).json();
    expect(session).toEqual({ user: null, writer: false });
  });

  it('anonymous 401 with WWW-Authenticate, a user not listed 403, a listed writer acts as herself', async () => {
    const url = await start(USERS, ['alice']);
    const anon = await ack(url);
    expect(anon.status).toBe(401);
    expect(anon.auth).toMatch(/^Basic realm=/);
    const bob = await ack(url, { authorization: BOB });
    expect(bob.status).toBe(403);
    expect(bob.text).toContain('"bob" may not write: not listed in alerting.api.writers');
    const wrongPw = await ack(url, { authorization: basic('alice', 'nope') });
    expect(wrongPw.status).toBe(401);
    const alice = await ack(url, { authorization: ALICE });
    expect([alice.status, JSON.parse(alice.text)]).toEqual([200, { by: 'alice' }]);
    expect(acted).toEqual(['alice']);
  });

  it('lets every basic-auth user write when alerting.api.writers is absent, nobody when it is []', async () => {
    let url = await start(USERS, undefined);
    expect((await ack(url, { authorization: BOB })).status).toBe(200);
    expect(acted).toEqual(['bob']);
    server!.closeAllConnections();
    await new Promise((resolve) => server!.close(resolve));
    url = await start(USERS, []);
    expect((await ack(url, { authorization: ALICE })).status).toBe(403);
  });

  it('asks a browser for same-origin and the write token the signed-in page gets from /api/v1/session', async () => {
    const url = await start(USERS, ['alice']);
    const session = (await (await fetch(`${url}/api/v1/session`, { headers: { authorization: ALICE } })).json()) as {
      user: string;
      writer: boolean;
      writeToken: string;
      tokenHeader: string;
    };
    expect(session).toMatchObject({ user: 'alice', writer: true, tokenHeader: 'x-ledger-write-token' });
    const token = { 'x-ledger-write-token': session.writeToken };
    const bobSession = (await (await fetch(`${url}/api/v1/session`, { headers: { authorization: BOB } })).json()) as {
      writer: boolean;
      writeToken?: string;
    };
    expect(bobSession).toEqual({ user: 'bob', writer: false });

    const auth = { authorization: ALICE };
    // Cross-site: refused whatever it carries.
    const crossSite = await ack(url, { ...auth, ...token, 'sec-fetch-site': 'cross-site', origin: 'http://evil.test' });
    expect([crossSite.status, crossSite.text]).toEqual([
      403,
      "cross-site write refused: act from the exporter's own status page\n",
    ]);
    expect((await ack(url, { ...auth, ...token, 'sec-fetch-site': 'same-site' })).status).toBe(403);
    // Only Origin (an older browser): compared with Host.
    expect((await ack(url, { ...auth, ...token, origin: 'http://evil.test' })).status).toBe(403);
    expect((await ack(url, { ...auth, ...token, origin: 'null' })).status).toBe(403);
    // Same-origin without the token, or with a forged one: refused, naming where the token comes from.
    const noToken = await ack(url, { ...auth, 'sec-fetch-site': 'same-origin', origin: url });
    expect(noToken.status).toBe(403);
    expect(noToken.text).toContain('x-ledger-write-token header from GET /api/v1/session');
    expect(
      (await ack(url, { ...auth, 'sec-fetch-site': 'same-origin', 'x-ledger-write-token': 'forged' })).status,
    ).toBe(403);
    expect(acted).toEqual([]);
    // Same-origin with the token: acts.
    expect((await ack(url, { ...auth, ...token, 'sec-fetch-site': 'same-origin', origin: url })).status).toBe(200);
    expect((await ack(url, { ...auth, ...token, origin: url })).status).toBe(200);
    // Alice's token is no one else's (writers: every user, so bob may write, but not with her token).
    expect(new WriteTokens().verify('alice', session.writeToken)).toBe(false);
    // No Origin and no Sec-Fetch-Site: a client like amtool, no token asked.
    expect((await ack(url, auth)).status).toBe(200);
    expect(acted).toEqual(['alice', 'alice', 'alice']);
  });

  it('reads alerting.api.writers from the config, with a description in the schema', () => {
    const nodes = ['nodes:', '  - name: a', '    url: http://10.0.0.1:9710'];
    const c = parseConfig([...nodes, 'alerting:', '  api:', '    writers: [alice, carol]', ''].join('\n'), {
      file: 'fleet.yaml',
      env: {},
    });
    expect(c.alerting?.api).toEqual({ writers: ['alice', 'carol'] });
    expect(
      parseConfig([...nodes, 'alerting: {}', ''].join('\n'), { file: 'f', env: {} }).alerting?.api,
    ).toBeUndefined();
    expect(() =>
      parseConfig([...nodes, 'alerting:', '  api: {writers: [""]}', ''].join('\n'), { file: 'f', env: {} }),
    ).toThrow();
  });
});
