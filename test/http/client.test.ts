// The shared outbound HTTP client against real loopback servers: deadline, size cap, redirect
// policy, classification, Retry-After and scrubbed messages.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/http/client.js';
import { Secrets } from '../../src/redact.js';

let server: Server;
let other: Server;
let base: string;
let otherBase: string;
const seen: Array<{ url: string; method: string; body: string; headers: IncomingMessage['headers'] }> = [];

function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Server> {
  const s = createServer(handler);
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve(s)));
}

const url = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;

beforeAll(async () => {
  other = await listen((req, res) => {
    seen.push({ url: `other${req.url}`, method: req.method!, body: '', headers: req.headers });
    res.end('other origin');
  });
  otherBase = url(other);
  server = await listen((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ url: req.url!, method: req.method!, body, headers: req.headers });
      const path = req.url!;
      if (path === '/ok') res.writeHead(200, { 'content-type': 'application/json' }).end('{"fine":true}');
      else if (path === '/echo') res.writeHead(201).end(body);
      else if (path === '/big') res.writeHead(200).end('x'.repeat(10_000));
      else if (path === '/busy')
        res.writeHead(503, { 'retry-after': '7' }).end(`busy, you sent ${req.headers.authorization}`);
      else if (path === '/busy-until')
        res.writeHead(503, { 'retry-after': new Date(Date.now() + 30_000).toUTCString() }).end();
      else if (path === '/nope') res.writeHead(404).end();
      else if (path === '/hang')
        return; // never answers
      else if (path === '/503-stall')
        res.writeHead(503, { 'content-length': '100' }).write('<html>busy'); // the rest never comes
      else if (path === '/503-cut') {
        res.writeHead(503, { 'content-length': '100' }).write('<html>over', () => res.socket?.destroy());
      } else if (path === '/local-redirect') res.writeHead(302, { location: '/ok' }).end();
      else if (path === '/foreign-redirect') res.writeHead(302, { location: `${otherBase}/steal` }).end();
      else res.writeHead(500).end();
    });
  });
  base = url(server);
});

afterAll(async () => {
  server.closeAllConnections();
  other.closeAllConnections();
  await new Promise((r) => server.close(r));
  await new Promise((r) => other.close(r));
});

function client(): HttpClient {
  const secrets = new Secrets();
  secrets.add('Bearer sekrit-token-123');
  return new HttpClient({ secrets });
}

describe('HttpClient', () => {
  it('POSTs a JSON body with headers and returns the answer', async () => {
    const c = client();
    const out = await c.send({
      method: 'POST',
      url: `${base}/echo`,
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
      timeoutMs: 2000,
      maxBytes: 1000,
    });
    await c.close();
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.response.status).toBe(201);
    expect(out.response.body.toString()).toBe('{"a":1}');
    expect(seen.at(-1)).toMatchObject({ method: 'POST', body: '{"a":1}' });
    expect(seen.at(-1)!.headers['content-type']).toBe('application/json');
  });

  it('classifies statuses, keeps the answer for evidence and parses Retry-After; messages are scrubbed', async () => {
    const c = client();
    const busy = await c.send({
      method: 'GET',
      url: `${base}/busy`,
      headers: { authorization: 'Bearer sekrit-token-123' },
      timeoutMs: 2000,
      maxBytes: 1000,
    });
    const nope = await c.send({ method: 'GET', url: `${base}/nope`, timeoutMs: 2000, maxBytes: 1000 });
    await c.close();
    expect(busy).toMatchObject({ ok: false, reason: 'http_5xx', status: 503, retryAfterMs: 7000 });
    if (busy.ok) return;
    // The raw answer is kept as received (evidence scrubs it); the message is already safe.
    expect(busy.response?.body.toString()).toContain('sekrit-token-123');
    expect(busy.message).not.toContain('sekrit');
    expect(nope).toMatchObject({ ok: false, reason: 'http_4xx', status: 404 });
  });

  it('turns a Retry-After HTTP-date into a delay once, against the wall clock the date is on', async () => {
    const c = client();
    const busy = await c.send({ method: 'GET', url: `${base}/busy-until`, timeoutMs: 2000, maxBytes: 1000 });
    await c.close();
    expect(busy).toMatchObject({ ok: false, status: 503 });
    // The date has whole seconds: 29-30 s from when it was written.
    expect(busy.ok ? undefined : busy.retryAfterMs).toBeGreaterThan(28_000);
    expect(busy.ok ? undefined : busy.retryAfterMs).toBeLessThanOrEqual(30_000);
  });

  it('ends at the deadline even when the server never answers', async () => {
    const c = client();
    const out = await c.send({ method: 'GET', url: `${base}/hang`, timeoutMs: 200, maxBytes: 1000 });
    await c.close();
    expect(out).toMatchObject({ ok: false, reason: 'timeout' });
    expect(out.durationMs).toBeLessThan(5000);
  });

  it('a 5xx whose body stalls or is cut stays a 5xx with what arrived (for evidence), not a timeout', async () => {
    const c = client();
    const stalled = await c.send({ method: 'GET', url: `${base}/503-stall`, timeoutMs: 300, maxBytes: 1000 });
    const cut = await c.send({ method: 'GET', url: `${base}/503-cut`, timeoutMs: 2000, maxBytes: 1000 });
    await c.close();
    for (const [out, text] of [
      [stalled, '<html>busy'],
      [cut, '<html>over'],
    ] as const) {
      expect(out).toMatchObject({ ok: false, reason: 'http_5xx', status: 503 });
      if (out.ok) return;
      expect(out.response?.body.toString()).toBe(text);
      expect(out.response?.truncated).toBe(true);
    }
    expect(!stalled.ok && stalled.message).toMatch(
      /^GET http:\/\/127\.0\.0\.1:\d+\/503-stall: HTTP 503, body cut short \(timed out/,
    );
  });

  it('a 2xx body over the cap is an invalid response, cut at the cap', async () => {
    const c = client();
    const out = await c.send({ method: 'GET', url: `${base}/big`, timeoutMs: 2000, maxBytes: 100 });
    expect(out).toMatchObject({ ok: false, reason: 'invalid_response', status: 200 });
    if (!out.ok) expect(out.response?.body.length).toBe(100);
    // The connection was not left half-read: the next request works.
    expect((await c.send({ method: 'GET', url: `${base}/ok`, timeoutMs: 2000, maxBytes: 100 })).ok).toBe(true);
    await c.close();
  });

  it('does not follow redirects by default; same-origin follows only within the origin', async () => {
    const c = client();
    seen.length = 0;
    expect(
      await c.send({ method: 'GET', url: `${base}/local-redirect`, timeoutMs: 2000, maxBytes: 100 }),
    ).toMatchObject({ ok: false, reason: 'redirect', status: 302 });
    const local = await c.send({
      method: 'GET',
      url: `${base}/local-redirect`,
      timeoutMs: 2000,
      maxBytes: 100,
      redirect: 'same-origin',
    });
    expect(local.ok && local.response.body.toString()).toBe('{"fine":true}');
    const foreign = await c.send({
      method: 'GET',
      url: `${base}/foreign-redirect`,
      headers: { authorization: 'Bearer sekrit-token-123' },
      timeoutMs: 2000,
      maxBytes: 100,
      redirect: 'same-origin',
    });
    await c.close();
    expect(foreign).toMatchObject({ ok: false, reason: 'redirect', status: 302 });
    expect(seen.some((s) => s.url.startsWith('other'))).toBe(false);
  });

  it('a refused connection is a connect failure naming the origin only', async () => {
    const c = client();
    const closed = await listen(() => undefined);
    const dead = url(closed);
    await new Promise((r) => closed.close(r));
    const out = await c.send({ method: 'GET', url: `${dead}/x?token=abc`, timeoutMs: 2000, maxBytes: 100 });
    await c.close();
    expect(out).toMatchObject({ ok: false, reason: 'connect' });
    if (!out.ok) expect(out.message).not.toContain('token=abc');
  });
});
