// NodeDispatcher.trimFinished over real HTTP to a server on 127.0.0.1: an idle origin's Client
// (or each Client of a Pool) forgets the finished requests undici keeps listing, a Client with a
// request in flight is left as it is, and the socket stays the one it was (no new connect). The
// list is read through the same symbols the trim uses, so an undici that renamed them fails here
// instead of letting the trim silently do nothing.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NodeDispatcher } from '../src/http/dispatcher.js';
import { waitFor } from './support/processes.js';

let server: Server;
let origin: string;
let connections = 0;
let held: Array<() => void> = [];
const dispatchers: NodeDispatcher[] = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const answer = () => res.end(`answer to ${req.url}`);
    if (req.url === '/hold') held.push(answer);
    else answer();
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  for (const answer of held.splice(0)) answer();
  await Promise.all(dispatchers.splice(0).map((d) => d.destroy()));
  server.closeAllConnections();
  connections = 0;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function dispatcher(): NodeDispatcher {
  const d = new NodeDispatcher();
  dispatchers.push(d);
  return d;
}

const get = (d: NodeDispatcher, path: string) =>
  request(`${origin}${path}`, { dispatcher: d, headersTimeout: 10_000, bodyTimeout: 10_000 }).then((r) => r.body.text());

async function sequence(d: NodeDispatcher, n: number): Promise<void> {
  for (let i = 0; i < n; i++) expect(await get(d, `/r${i}`)).toBe(`answer to /r${i}`);
}

type Fields = Record<symbol, unknown>;
const symbolNamed = (o: object, name: string) => Object.getOwnPropertySymbols(o).find((s) => s.description === name);

/** The undici Clients behind the dispatcher's origins (a Pool's own Clients for a pooled origin). */
function clientsOf(d: NodeDispatcher): object[] {
  const origins = (d as unknown as { origins: Map<string, { dispatcher: object }> }).origins;
  return [...origins.values()].flatMap(({ dispatcher: x }) => {
    const key = symbolNamed(x, 'clients');
    return key ? ((x as Fields)[key] as object[]) : [x];
  });
}

/** Entries in a Client's request list (finished, running and pending). */
function listed(client: object): number {
  const key = symbolNamed(client, 'queue');
  expect(key, 'undici Client has no "queue" field').toBeDefined();
  const queue = (client as Fields)[key!];
  expect(Array.isArray(queue)).toBe(true);
  return (queue as unknown[]).length;
}

describe('NodeDispatcher.trimFinished', () => {
  it('empties an idle Client list of finished requests and keeps using its socket', async () => {
    const d = dispatcher();
    await sequence(d, 40);
    const [client] = clientsOf(d);
    // undici itself keeps them until 257 have run.
    expect(listed(client!)).toBe(40);
    expect(d.trimFinished()).toBe(40);
    expect(listed(client!)).toBe(0);
    expect(d.trimFinished()).toBe(0);
    // Past undici's own cut at 257, with trims between: every answer right, one socket throughout.
    await sequence(d, 300);
    expect(d.trimFinished()).toBe(300 - 257);
    await sequence(d, 5);
    expect(connections).toBe(1);
    expect(clientsOf(d)).toEqual([client]);
  });

  it('leaves a Client with a request in flight as it is, and trims it once it is idle', async () => {
    const d = dispatcher();
    await sequence(d, 10);
    const pending = get(d, '/hold');
    pending.catch(() => undefined); // awaited below; a failure before that is not unhandled
    await waitFor('the server to hold the request', () => held.length === 1, { timeoutMs: 10_000, intervalMs: 5 });
    const [client] = clientsOf(d);
    expect(listed(client!)).toBe(11);
    expect(d.trimFinished()).toBe(0);
    expect(listed(client!)).toBe(11);
    held.shift()!();
    expect(await pending).toBe('answer to /hold');
    expect(d.trimFinished()).toBe(11);
    await sequence(d, 3);
    expect(connections).toBe(1);
  });

  it('trims each Client of an origin pooled for several nodes', async () => {
    const d = dispatcher();
    d.setConnectionsPerOrigin(new Map([[origin, 2]]));
    // Two in parallel, twice: the pool runs them on its two Clients.
    for (let round = 0; round < 2; round++) await Promise.all([get(d, '/a'), get(d, '/b')]);
    const clients = clientsOf(d);
    expect(clients).toHaveLength(2);
    const before = clients.reduce((n, c) => n + listed(c), 0);
    expect(before).toBe(4);
    expect(d.trimFinished()).toBe(4);
    expect(clients.map(listed)).toEqual([0, 0]);
    expect(await get(d, '/after')).toBe('answer to /after');
  });
});
