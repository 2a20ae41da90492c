// The probe of a service endpoint found on chain, against real loopback servers: refused before
// anything is sent for each forbidden class, connected to the address it checked (a host name
// resolved once, that very address dialled), no redirect followed, its own size limit and timeout,
// nothing sent beyond a plain User-Agent.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeEndpoint } from '../../src/http/endpointProbe.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const servers: Server[] = [];
const hits: Record<string, IncomingMessage[]> = {};

async function serve(name: string, handler: Handler): Promise<string> {
  hits[name] = [];
  const s = createServer((req, res) => {
    hits[name]!.push(req);
    handler(req, res);
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

let ok: string;
let other: string;
let redirect: string;
let big: string;
let slow: string;

beforeAll(async () => {
  ok = await serve('ok', (_q, res) => res.end('fine'));
  other = await serve('other', (_q, res) => res.end('other host'));
  redirect = await serve('redirect', (_q, res) => {
    res.writeHead(302, { location: other.replace('127.0.0.1', 'localhost') + '/elsewhere' });
    res.end();
  });
  big = await serve('big', (_q, res) => {
    res.writeHead(200);
    const chunk = Buffer.alloc(64 * 1024, 120);
    let sent = 0;
    const pump = () => {
      while (sent < 64 && res.write(chunk)) sent++;
      if (sent >= 64) res.end();
      else res.once('drain', pump);
    };
    res.on('error', () => undefined);
    pump();
  });
  slow = await serve('slow', () => undefined);
});

afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

describe('probeEndpoint', () => {
  it('refuses loopback, private, link-local, metadata and mapped addresses without sending anything', async () => {
    const port = new URL(ok).port;
    const cases: Array<[string, RegExp]> = [
      [`http://127.0.0.1:${port}/`, /^endpoint refused: loopback address 127\.0\.0\.1$/],
      [`http://[::1]:${port}/`, /^endpoint refused: loopback address ::1$/],
      [`http://2130706433:${port}/`, /^endpoint refused: loopback address 127\.0\.0\.1$/],
      [`http://0177.0.0.1:${port}/`, /^endpoint refused: loopback address 127\.0\.0\.1$/],
      [`http://[::ffff:127.0.0.1]:${port}/`, /^endpoint refused: loopback address ::ffff:7f00:1$/],
      ['http://10.0.0.5/', /^endpoint refused: private address 10\.0\.0\.5$/],
      ['http://[fd12::1]/', /^endpoint refused: private address fd12::1$/],
      ['http://169.254.169.254/latest/meta-data/', /^endpoint refused: metadata address 169\.254\.169\.254$/],
      ['http://[fd00:ec2::254]/', /^endpoint refused: metadata address fd00:ec2::254$/],
      ['http://metadata.google.internal/', /^endpoint refused: metadata host metadata\.google\.internal$/],
      ['http://[fe80::1]/', /^endpoint refused: link-local address fe80::1$/],
      ['http://100.64.0.1/', /^endpoint refused: CGNAT address 100\.64\.0\.1$/],
      ['gopher://example.com/', /^endpoint refused: scheme gopher: is not http or https$/],
    ];
    for (const [url, problem] of cases) {
      const r = await probeEndpoint(url);
      expect(r, url).toMatchObject({ up: false, refused: true });
      expect(r.problem, url).toMatch(problem);
    }
    expect(hits.ok).toHaveLength(0);
  });

  it('refuses a name that resolves to a private address, judging every address it resolves to', async () => {
    const r = await probeEndpoint('http://service.example/', { resolve: async () => ['93.184.216.34', '10.1.2.3'] });
    expect(r).toMatchObject({ up: false, refused: true, problem: 'endpoint refused: private address 10.1.2.3' });
  });

  it('with allowPrivateEndpoints, answers up from a loopback server, sending only a User-Agent', async () => {
    const r = await probeEndpoint(`${ok}/health?x=1`, { allowPrivate: true });
    expect(r).toMatchObject({ up: true, status: 200, address: '127.0.0.1' });
    expect(r.durationSeconds).toBeGreaterThanOrEqual(0);
    const req = hits.ok!.at(-1)!;
    expect(req.url).toBe('/health?x=1');
    expect(req.headers['user-agent']).toBe('ledger-fleet-exporter service probe');
    expect(req.headers.authorization).toBeUndefined();
    expect(req.headers.cookie).toBeUndefined();
  });

  it('connects to the address it checked, not to a second resolution of the name', async () => {
    let resolutions = 0;
    const port = new URL(ok).port;
    const before = hits.ok!.length;
    const r = await probeEndpoint(`http://rebind.example:${port}/`, {
      allowPrivate: true,
      resolve: async () => (resolutions++ === 0 ? ['127.0.0.1'] : ['10.9.9.9']),
    });
    expect(r).toMatchObject({ up: true, status: 200, address: '127.0.0.1' });
    expect(resolutions).toBe(1);
    expect(hits.ok!.length).toBe(before + 1);
    expect(hits.ok!.at(-1)!.headers.host).toBe(`rebind.example:${port}`);
  });

  it('follows no redirect to another host: it reports the status and says so', async () => {
    const r = await probeEndpoint(redirect, { allowPrivate: true });
    expect(r).toMatchObject({
      status: 302,
      problem: expect.stringMatching(/^redirect to localhost:\d+ not followed$/),
    });
    expect(hits.other).toHaveLength(0);
  });

  it('stops reading an answer over its size limit', async () => {
    const r = await probeEndpoint(big, { allowPrivate: true, maxBodyBytes: 100_000 });
    expect(r).toMatchObject({ up: false, status: 200, problem: 'answer larger than 100000 bytes' });
  });

  it('gives up after its own timeout', async () => {
    const r = await probeEndpoint(slow, { allowPrivate: true, timeoutMs: 300 });
    expect(r.up).toBe(false);
    expect(r.problem).toMatch(/^(no answer within 300 ms|timeout)$/);
  });

  it('reports a refused connection in words', async () => {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const port = (s.address() as AddressInfo).port;
    await new Promise((r) => s.close(r));
    const r = await probeEndpoint(`http://127.0.0.1:${port}/`, { allowPrivate: true });
    expect(r).toMatchObject({ up: false, problem: 'connection refused' });
  });
});
