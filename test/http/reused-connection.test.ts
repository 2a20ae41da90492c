// A keep-alive connection the server closes just as the next request goes out: the request got
// nothing back, so an idempotent one is sent once more on a new connection instead of being
// recorded as a `connect` failure. Real loopback server; the server decides which request of a
// connection it drops.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/http/client.js';
import { createDispatcher } from '../../src/http/dispatcher.js';
import { Secrets } from '../../src/redact.js';

let server: Server;
let base: string;
/** Which request of a connection (1-based) the server drops without answering; 0: none. */
let dropNth = 0;
let connections = 0;
const seen: string[] = [];
const perSocket = new WeakMap<Socket, number>();

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    const n = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, n);
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => {
      if (n === dropNth) req.socket.destroy();
      else res.writeHead(200, { 'content-type': 'text/plain' }).end(`answer ${n}`);
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

beforeEach(() => {
  seen.length = 0;
  connections = 0;
});

async function twoRequests(second: { method: 'GET' | 'POST'; idempotent?: boolean }) {
  const client = new HttpClient({ secrets: new Secrets() });
  try {
    dropNth = 0;
    const first = await client.send({ method: 'GET', url: `${base}/first`, timeoutMs: 2000, maxBytes: 1000 });
    dropNth = 2;
    const out = await client.send({
      method: second.method,
      url: `${base}/second`,
      body: second.method === 'POST' ? '{}' : undefined,
      timeoutMs: 2000,
      maxBytes: 1000,
      idempotent: second.idempotent,
    });
    return { first, out };
  } finally {
    dropNth = 0;
    await client.close();
  }
}

describe('a reused connection closed under the request', () => {
  it('a GET is sent once more on a new connection and succeeds', async () => {
    const { first, out } = await twoRequests({ method: 'GET' });
    expect(first.ok).toBe(true);
    expect(out.ok).toBe(true);
    if (out.ok) expect(out.response.body.toString()).toBe('answer 1');
    expect(seen).toEqual(['GET /first', 'GET /second', 'GET /second']);
    expect(connections).toBe(2);
  });

  it('a POST marked idempotent (a JSON-RPC read) is sent once more too', async () => {
    const { out } = await twoRequests({ method: 'POST', idempotent: true });
    expect(out.ok).toBe(true);
    expect(seen).toEqual(['GET /first', 'POST /second', 'POST /second']);
  });

  it('a plain POST is not repeated: the failure is a connect failure', async () => {
    const { out } = await twoRequests({ method: 'POST' });
    expect(out).toMatchObject({ ok: false, reason: 'connect' });
    expect(seen).toEqual(['GET /first', 'POST /second']);
  });

  it('a request dropped on a connection opened for it is a connect failure, sent once', async () => {
    const client = new HttpClient({ secrets: new Secrets() });
    dropNth = 1;
    try {
      const out = await client.send({ method: 'GET', url: `${base}/fresh`, timeoutMs: 2000, maxBytes: 1000 });
      expect(out).toMatchObject({ ok: false, reason: 'connect' });
      expect(seen).toEqual(['GET /fresh']);
      expect(connections).toBe(1);
    } finally {
      dropNth = 0;
      await client.close();
    }
  });

  it('is retried once at most: dropped again, it is a connect failure', async () => {
    const client = new HttpClient({ secrets: new Secrets() });
    try {
      dropNth = 0;
      expect((await client.send({ method: 'GET', url: `${base}/first`, timeoutMs: 2000, maxBytes: 1000 })).ok).toBe(
        true,
      );
      // The second request of the first connection and the first of the next are both dropped.
      dropNth = 2;
      server.once('connection', (s: Socket) => perSocket.set(s, 1));
      const out = await client.send({ method: 'GET', url: `${base}/again`, timeoutMs: 2000, maxBytes: 1000 });
      expect(out).toMatchObject({ ok: false, reason: 'connect' });
      expect(seen).toEqual(['GET /first', 'GET /again', 'GET /again']);
    } finally {
      dropNth = 0;
      await client.close();
    }
  });

  it('clients closed leave no listener on a pool they share (reloads make new clients)', async () => {
    const pool = createDispatcher();
    try {
      const before = [pool.listenerCount('connect'), pool.listenerCount('disconnect')];
      for (let i = 0; i < 20; i++) {
        const c = new HttpClient({ secrets: new Secrets(), dispatcher: pool });
        expect(pool.listenerCount('connect')).toBe(before[0]! + 1);
        await c.close();
      }
      expect([pool.listenerCount('connect'), pool.listenerCount('disconnect')]).toEqual(before);
    } finally {
      await pool.destroy();
    }
  });

  it('clients open at once on one pool share one listener pair; a retry works after others closed', async () => {
    const pool = createDispatcher();
    const clients = Array.from({ length: 20 }, () => new HttpClient({ secrets: new Secrets(), dispatcher: pool }));
    try {
      // Twenty clients (an agent platform checker, receivers, probes) on one pool: no EventEmitter leak warning.
      expect([pool.listenerCount('connect'), pool.listenerCount('disconnect')]).toEqual([1, 1]);
      const last = clients.pop()!;
      for (const c of clients.splice(0)) await c.close();
      await last.close();
      await last.close(); // a second close is not counted again
      expect(pool.listenerCount('connect')).toBe(0);
      const again = new HttpClient({ secrets: new Secrets(), dispatcher: pool });
      const other = new HttpClient({ secrets: new Secrets(), dispatcher: pool });
      clients.push(again, other);
      dropNth = 0;
      expect((await again.send({ method: 'GET', url: `${base}/first`, timeoutMs: 2000, maxBytes: 1000 })).ok).toBe(
        true,
      );
      await other.close();
      dropNth = 2;
      const out = await again.send({ method: 'GET', url: `${base}/second`, timeoutMs: 2000, maxBytes: 1000 });
      expect(out.ok).toBe(true);
      expect(seen).toEqual(['GET /first', 'GET /second', 'GET /second']);
    } finally {
      dropNth = 0;
      for (const c of clients) await c.close();
      await pool.destroy();
    }
  });
});
