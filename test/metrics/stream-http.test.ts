// /metrics over real HTTP with the streamed scrape path: a body that fits one chunk is answered
// with its Content-Length as before; a larger one is streamed chunked and reads the same; a
// client that reads nothing holds only its own chunks and delays no other scrape; a failure
// after the headers cuts the connection (and is logged), one before them is a 500.
import { get, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { MetricsView, type ExporterCounters } from '../../src/metrics/view.js';
import { buildServer, createRequestHandler } from '../../src/server.js';
import type { FleetSnapshot } from '../../src/state/snapshot.js';
import { buildSnapshot } from '../../src/state/snapshot.js';
import { fleet, rng, T0 } from '../support/streamedFleet.js';

const counters: ExporterCounters = { configReloads: { success: 0, failure: 0 }, pollOverruns: new Map() };
const servers: Server[] = [];

afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((resolve) => s.close(resolve));
});

/** A server answering /metrics from `view`; `logged` gathers its log lines. */
async function serve(view: MetricsView): Promise<{ port: number; logged: string[] }> {
  const logged: string[] = [];
  const handler = createRequestHandler({
    logger: createLogger({
      level: 'error',
      destination: new Writable({ write: (c: Buffer, _e, cb) => cb(void logged.push(c.toString())) }),
    }),
    version: 'test',
    metrics: () => view,
    ready: () => true,
    snapshot: () => ({}) as FleetSnapshot,
  });
  const server = buildServer(undefined, handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, logged };
}

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

function request(port: number, opts: { gzip?: boolean; method?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers = opts.gzip ? { 'accept-encoding': 'gzip' } : {};
    const req = get({ port, host: '127.0.0.1', path: '/metrics', headers, method: opts.method ?? 'GET' }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts) }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

const text = (a: Answer) => (a.headers['content-encoding'] === 'gzip' ? gunzipSync(a.body) : a.body).toString('utf8');

describe('/metrics streamed', () => {
  it('answers a body that fits one chunk with its Content-Length, plain and gzip', async () => {
    const f = fleet(5);
    const view = f.view();
    f.answer([view], 0, rng(1));
    const { port } = await serve(view);
    const want = (await view.render('text')).body.toString('utf8');
    for (const gzip of [false, true]) {
      const a = await request(port, { gzip });
      expect(a.status).toBe(200);
      expect(a.headers['content-length']).toBe(String(a.body.length));
      expect(a.headers['transfer-encoding']).toBeUndefined();
      expect(a.headers['content-encoding']).toBe(gzip ? 'gzip' : undefined);
      expect(a.headers.vary).toBe('Accept, Accept-Encoding');
      expect(text(a)).toBe(want);
    }
  });

  it('streams a body larger than a chunk, chunked, reading the same; HEAD gives the length GET sends', async () => {
    const f = fleet(60);
    const view = f.view(4096);
    f.answer([view], 0, rng(2));
    const { port } = await serve(view);
    const want = (await view.render('text')).body.toString('utf8');
    expect(want.length).toBeGreaterThan(4 * 4096);
    for (const gzip of [false, true, true]) {
      const a = await request(port, { gzip });
      expect(a.status).toBe(200);
      expect(a.headers['transfer-encoding']).toBe('chunked');
      expect(a.headers['content-length']).toBeUndefined();
      expect(a.headers['content-encoding']).toBe(gzip ? 'gzip' : undefined);
      expect(a.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
      expect(a.headers.vary).toBe('Accept, Accept-Encoding');
      expect(a.headers['x-content-type-options']).toBe('nosniff');
      expect(text(a)).toBe(want);
    }
    const head = await request(port, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(want)));
  });

  it('lets other scrapes through while a client reads nothing, and keeps no more chunks than the pool', async () => {
    // ~20 MB of body: far more than the kernel's socket buffers hold for a client that does not read.
    const f = fleet(1500);
    const view = f.view(64 * 1024);
    f.answer([view], 0, rng(3), 200);
    const { port } = await serve(view);
    const want = (await view.render('text')).body.toString('utf8');
    expect(want.length).toBeGreaterThan(16 * 1024 * 1024);
    let slowEnded = false;
    let headersCame!: () => void;
    const slowHeaders = new Promise<void>((resolve) => (headersCame = resolve));
    const slow = new Promise<Answer>((resolve, reject) => {
      get({ port, host: '127.0.0.1', path: '/metrics' }, (res) => {
        res.pause();
        headersCame();
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => {
          slowEnded = true;
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts) });
        });
        res.on('error', reject);
        // Resumed only once the other scrapes are done.
        void others.then(() => res.resume());
      }).on('error', reject);
    });
    const others = (async () => {
      // The slow client's body is being streamed: these scrapes' renders come after its render.
      await slowHeaders;
      const answers: Answer[] = [];
      for (const gzip of [false, true, false]) answers.push(await request(port, { gzip }));
      return answers;
    })();
    const answers = await others;
    expect(slowEnded).toBe(false);
    for (const a of answers) expect(text(a)).toBe(want);
    expect(view.chunks.size).toBeLessThanOrEqual(view.chunks.keep);
    // The slow client's chunks were not the pool's to reuse: renders took fresh ones meanwhile.
    expect(view.chunks.freshTaken).toBeGreaterThan(0);
    const late = await slow;
    expect(text(late)).toBe(want);
    expect(view.chunks.size).toBe(view.chunks.keep);
  });

  it('cuts the connection when the body fails after its headers (logged); before them it is a 500', async () => {
    const f = fleet(30);
    const failing = (chunkBytes: number) =>
      new MetricsView(
        { version: '9.9.9', infoLabelKeys: [], defaultMetrics: false, chunkBytes },
        () => ({ snapshot: buildSnapshot(f.state.nodes(), {}, T0), upstream: [], counters }),
        function* () {
          yield;
          throw new Error('upstream lines gone');
        },
      );
    const streaming = failing(1024);
    f.answer([streaming], 0, rng(4));
    const { port, logged } = await serve(streaming);
    const outcome = await new Promise<string>((resolve) => {
      get({ port, host: '127.0.0.1', path: '/metrics' }, (res) => {
        expect(res.headers['transfer-encoding']).toBe('chunked');
        res.on('data', () => undefined);
        res.on('end', () => resolve('complete'));
        res.on('error', () => resolve('broken'));
        res.on('aborted', () => resolve('broken'));
      }).on('error', () => resolve('broken'));
    });
    expect(outcome).toBe('broken');
    for (let i = 0; i < 100 && !logged.some((l) => l.includes('upstream lines gone')); i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(logged.join('')).toContain('/metrics failed after its headers were sent');
    expect(logged.join('')).toContain('upstream lines gone');

    const whole = failing(1024 * 1024);
    f.answer([whole], 1, rng(5));
    const second = await serve(whole);
    const a = await request(second.port);
    expect(a.status).toBe(500);
    expect(a.body.toString()).toBe('internal error\n');
  });
});
