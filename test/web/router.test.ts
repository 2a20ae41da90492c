// The method-aware router over real loopback HTTP: routes declared by method and path pattern,
// path parameters, HEAD for GET routes, 405 with the path's own Allow, bodies within a size limit
// (413), JSON errors 400 with the reason, and a write route reached only through the write gate.
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import type { MetricsView } from '../../src/metrics/view.js';
import { buildServer, createRequestHandler } from '../../src/server.js';
import type { FleetSnapshot } from '../../src/state/snapshot.js';
import { get, jsonReply, write, type Endpoint } from '../../src/web/route.js';

let server: Server;
let base: string;
const seen: unknown[] = [];

const routes: Endpoint[] = [
  get('/api/v2/silences', (req) => jsonReply(200, { list: true, filter: req.params.getAll('filter') })),
  write(
    'POST',
    '/api/v2/silences',
    (req) => {
      seen.push({ user: req.user, body: req.body });
      return jsonReply(200, { silenceID: 'new', by: req.user });
    },
    { kind: 'json', maxBytes: 1024 },
  ),
  get('/api/v2/silence/{id}', (req) => jsonReply(200, { id: req.path.id })),
  write('DELETE', '/api/v2/silence/{id}', (req) => jsonReply(200, { expired: req.path.id, by: req.user })),
  // A route that passes: the next one for the same path answers.
  get('/pass', () => undefined),
  get('/pass', () => jsonReply(200, { second: true })),
];

beforeAll(async () => {
  const handler = createRequestHandler({
    logger: createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, cb) => cb() }) }),
    version: 'test',
    metrics: () => ({}) as MetricsView,
    ready: () => true,
    snapshot: () => ({ nodes: [] }) as unknown as FleetSnapshot,
    routes,
    // A gate that lets "alice" write when she says so in a header: the router's part, not the policy's.
    writeGate: (req) =>
      req.headers['x-test-user']
        ? { user: String(req.headers['x-test-user']) }
        : { status: 403, contentType: 'text/plain', body: 'no\n' },
  });
  server = buildServer(undefined, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function call(path: string, init: RequestInit = {}) {
  const res = await fetch(base + path, init);
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const json = { 'content-type': 'application/json' };

describe('the router', () => {
  it('routes by method and path, with path parameters percent-decoded', async () => {
    expect(JSON.parse((await call('/api/v2/silences?filter=a%3D1')).text)).toEqual({ list: true, filter: ['a=1'] });
    expect(JSON.parse((await call('/api/v2/silence/ab%20c')).text)).toEqual({ id: 'ab c' });
    const del = await call('/api/v2/silence/x1', { method: 'DELETE', headers: { 'x-test-user': 'alice' } });
    expect(JSON.parse(del.text)).toEqual({ expired: 'x1', by: 'alice' });
    expect(JSON.parse((await call('/pass')).text)).toEqual({ second: true });
    expect((await call('/api/v2/silence/')).status).toBe(404);
    expect((await call('/api/v2/silence/a/b')).status).toBe(404);
    expect((await call('/nope', { method: 'POST' })).status).toBe(404);
  });

  it('answers HEAD for GET routes, without a body', async () => {
    const head = await call('/api/v2/silence/x', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
  });

  it("answers 405 with the path's own Allow", async () => {
    const put = await call('/api/v2/silences', { method: 'PUT', headers: json, body: '{}' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD, POST');
    const post = await call('/api/v2/silence/x', { method: 'POST', headers: json, body: '{}' });
    expect(post.headers.get('allow')).toBe('GET, HEAD, DELETE');
    const metrics = await call('/healthz', { method: 'DELETE' });
    expect([metrics.status, metrics.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  });

  it('hands a write handler the user the gate let through, and the parsed JSON body', async () => {
    seen.length = 0;
    const ok = await call('/api/v2/silences', {
      method: 'POST',
      headers: { ...json, 'x-test-user': 'alice' },
      body: JSON.stringify({ comment: 'disk swap' }),
    });
    expect(JSON.parse(ok.text)).toEqual({ silenceID: 'new', by: 'alice' });
    expect(seen).toEqual([{ user: 'alice', body: { comment: 'disk swap' } }]);
    const refused = await call('/api/v2/silences', { method: 'POST', headers: json, body: '{}' });
    expect([refused.status, refused.text]).toEqual([403, 'no\n']);
    expect(seen).toHaveLength(1);
  });

  it('refuses bad bodies with the reason: 400 not JSON, 415 not sent as JSON, 413 over the limit', async () => {
    const post = (body: string, headers: Record<string, string> = json) =>
      call('/api/v2/silences', { method: 'POST', headers: { ...headers, 'x-test-user': 'alice' }, body });
    const bad = await post('{"comment": ');
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/^request body is not valid JSON: .*JSON/);
    const notUtf8 = await call('/api/v2/silences', {
      method: 'POST',
      headers: { ...json, 'x-test-user': 'alice' },
      body: Buffer.from([0x22, 0xff, 0x22]),
    });
    expect([notUtf8.status, notUtf8.text]).toEqual([400, 'request body is not valid UTF-8\n']);
    const form = await post('a=1', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
    const big = await post(JSON.stringify({ comment: 'x'.repeat(2000) }));
    expect([big.status, big.text]).toEqual([413, 'request body over 1024 bytes\n']);
    expect(seen).toHaveLength(1);
  });

  it('stops at the limit when the body comes without a length (chunked)', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        `${base}/api/v2/silences`,
        { method: 'POST', headers: { ...json, 'x-test-user': 'alice', 'transfer-encoding': 'chunked' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      // Four writes of 600 bytes: the router answers once the second one passes 1024.
      for (let i = 0; i < 4; i++) req.write('x'.repeat(600));
      req.end();
    });
    expect(status).toBe(413);
  });
});
