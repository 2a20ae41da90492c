// How the server reads request targets, over real loopback HTTP with raw targets (a client
// library would normalise them): "//metrics" is a path of its own, not host "metrics" with path
// "/", while ordinary paths, query strings, absolute-form targets and the length limit are kept.
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';
import type { MetricsView } from '../src/metrics/view.js';
import { buildServer, createRequestHandler } from '../src/server.js';
import type { Route } from '../src/web/route.js';
import type { FleetSnapshot } from '../src/state/snapshot.js';

let server: Server;
let port: number;

// A stand-in for the status routes: "/" is the status page, /echo/... says what the route saw.
const statusRoute: Route = (req) => {
  if (req.pathname === '/') return { status: 200, contentType: 'text/plain', body: 'status page' };
  if (req.pathname.startsWith('/echo/'))
    return {
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify({ path: req.pathname, params: [...req.params] }),
    };
  return undefined;
};

beforeAll(async () => {
  const metrics = {
    render: async () => ({
      contentType: 'text/plain; version=0.0.4',
      body: 'metrics body\n',
      gzipped: undefined,
      release: () => {},
    }),
  };
  const handler = createRequestHandler({
    logger: createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, cb) => cb() }) }),
    version: 'test',
    metrics: () => metrics as unknown as MetricsView,
    ready: () => true,
    snapshot: () => ({}) as FleetSnapshot,
    routes: [statusRoute],
  });
  server = buildServer(undefined, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** GET with the request target sent exactly as given. */
function get(target: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: target, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('request targets', () => {
  it('reads "//metrics" as the path "//metrics", which is not served', async () => {
    expect(await get('//metrics')).toEqual({ status: 404, body: 'not found\n' });
    expect((await get('//metrics?x=1')).status).toBe(404);
    expect((await get('/\\metrics')).status).toBe(404);
    expect(await get('//echo/x?a=1')).toEqual({ status: 404, body: 'not found\n' });
  });

  it('keeps serving ordinary paths, their query strings, absolute-form targets and the length limit', async () => {
    expect(await get('/metrics')).toEqual({ status: 200, body: 'metrics body\n' });
    expect(await get('/metrics?debug=1')).toEqual({ status: 200, body: 'metrics body\n' });
    expect(await get('/')).toEqual({ status: 200, body: 'status page' });
    expect(await get('/?page=2')).toEqual({ status: 200, body: 'status page' });
    expect(JSON.parse((await get('/echo/a%20b?x=1&y=%2F&x=2')).body)).toEqual({
      path: '/echo/a%20b',
      params: [
        ['x', '1'],
        ['y', '/'],
        ['x', '2'],
      ],
    });
    expect(await get('/echo/../metrics')).toEqual({ status: 200, body: 'metrics body\n' });
    expect(await get('http://example.org/metrics')).toEqual({ status: 200, body: 'metrics body\n' });
    expect((await get('/healthz')).status).toBe(200);
    expect((await get('/nope')).status).toBe(404);
    expect((await get('/' + 'a'.repeat(5000))).status).toBe(414);
  });
});
