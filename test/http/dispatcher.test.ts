// NodeDispatcher over real HTTP to a server on 127.0.0.1.
// - setConnectionsPerOrigin: an origin whose socket count changed gets a new pool for its next
//   request, while the old one (retired) finishes the request it was sent and then closes its
//   socket; close() and destroy() reach retired pools.
// - trimFinished: an idle origin's Client (or each Client of a Pool) forgets the finished requests
//   undici keeps listing, a Client with a request in flight is left as it is, and the socket stays
//   the one it was. The list is read through the same symbols the trim uses, so an undici that
//   renamed them fails here instead of letting the trim silently do nothing.
// - keepIdleFor: with a server that names no Keep-Alive timeout (as hyper, in front of the real
//   nodes), an idle socket is kept for the time given and closed after it; idleKeepMs gives that
//   time from the nodes' poll intervals.
// - connection events: an origin's connect and disconnect are told as the NodeDispatcher's own.
// The server holds chosen requests until the test releases them, so "in flight" is a state the
// test waits for, not a race.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { idleKeepMs, NodeDispatcher } from '../../src/http/dispatcher.js';
import { waitFor } from '../support/processes.js';

let server: Server;
let origin: string;
/** Every socket the server accepted, in order, and whether it has closed. */
let sockets: Array<{ socket: Socket; closed: boolean }> = [];
/** Requests to /hold, answered when the test calls them. */
const held: Array<() => void> = [];
const dispatchers: NodeDispatcher[] = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const answer = () => res.end(`answer to ${req.url}`);
    if (req.url === '/hold') held.push(answer);
    else answer();
  });
  server.on('connection', (socket: Socket) => {
    const entry = { socket, closed: false };
    sockets.push(entry);
    socket.once('close', () => (entry.closed = true));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  for (const answer of held.splice(0)) answer();
  await Promise.all(dispatchers.splice(0).map((d) => d.destroy()));
  server.closeAllConnections();
  sockets = [];
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
  request(`${origin}${path}`, { dispatcher: d, headersTimeout: 10_000, bodyTimeout: 10_000 }).then(async (r) => ({
    status: r.statusCode,
    body: await r.body.text(),
  }));

/**
 * Starts a request to /hold and waits until the server holds it (wrapped, so awaiting this does not await the answer).
 */
async function holdOne(d: NodeDispatcher): Promise<{ answer: Promise<{ status: number; body: string }> }> {
  const before = held.length;
  const answer = get(d, '/hold');
  answer.catch(() => undefined); // the test awaits it later; until then a rejection is not unhandled
  await waitFor('the server to hold the request', () => held.length > before, { timeoutMs: 10_000, intervalMs: 5 });
  return { answer };
}

describe('NodeDispatcher.setConnectionsPerOrigin', () => {
  it('retires the old pool: its request in flight completes, the next uses a new socket, the old closes', async () => {
    const d = dispatcher();
    const inFlight = (await holdOne(d)).answer;
    expect(sockets).toHaveLength(1);

    d.setConnectionsPerOrigin(new Map([[origin, 2]]));
    // The old pool's only socket is busy; the next request goes through a new pool and a new socket.
    expect(await get(d, '/next')).toEqual({ status: 200, body: 'answer to /next' });
    expect(sockets).toHaveLength(2);
    expect(sockets[0]!.closed).toBe(false);

    held.shift()!();
    expect(await inFlight).toEqual({ status: 200, body: 'answer to /hold' });
    await waitFor('the retired pool to close its socket', () => sockets[0]!.closed, {
      timeoutMs: 10_000,
      intervalMs: 10,
    });
    // The new pool keeps its socket for the requests after it.
    expect(sockets[1]!.closed).toBe(false);
    expect(await get(d, '/again')).toEqual({ status: 200, body: 'answer to /again' });
    expect(sockets).toHaveLength(2);
  });

  it('an unchanged size keeps the pool and its socket', async () => {
    const d = dispatcher();
    expect(await get(d, '/first')).toEqual({ status: 200, body: 'answer to /first' });
    d.setConnectionsPerOrigin(
      new Map([
        [origin, 1],
        ['http://127.0.0.1:1', 3],
      ]),
    );
    expect(await get(d, '/second')).toEqual({ status: 200, body: 'answer to /second' });
    expect(sockets).toHaveLength(1);
    expect(sockets[0]!.closed).toBe(false);
  });

  it('close() waits for a retired pool to finish its request in flight', async () => {
    const d = dispatcher();
    const inFlight = (await holdOne(d)).answer;
    d.setConnectionsPerOrigin(new Map([[origin, 2]]));
    let closed = false;
    const closing = d.close().then(() => (closed = true));
    // A full round trip to the server over another client: close() has had every chance to settle.
    expect(await (await fetch(`${origin}/probe`)).text()).toBe('answer to /probe');
    expect(closed).toBe(false);

    held.shift()!();
    expect(await inFlight).toEqual({ status: 200, body: 'answer to /hold' });
    await closing;
    await waitFor('the retired socket to close', () => sockets[0]!.closed, { timeoutMs: 10_000, intervalMs: 10 });
  });

  it('destroy() reaches a retired pool: its request in flight is rejected and its socket closed', async () => {
    const d = dispatcher();
    const inFlight = (await holdOne(d)).answer;
    d.setConnectionsPerOrigin(new Map([[origin, 2]]));
    await d.destroy();
    // Destroyed, not timed out: the request's own headers timeout (10 s) has not run out.
    await expect(inFlight).rejects.toMatchObject({ code: 'UND_ERR_DESTROYED' });
    await waitFor('the retired socket to close', () => sockets[0]!.closed, { timeoutMs: 10_000, intervalMs: 10 });
    await expect(get(d, '/after')).rejects.toThrow();
  });
});

async function sequence(d: NodeDispatcher, n: number): Promise<void> {
  for (let i = 0; i < n; i++) expect(await get(d, `/r${i}`)).toEqual({ status: 200, body: `answer to /r${i}` });
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
    expect(sockets).toHaveLength(1);
    expect(clientsOf(d)).toEqual([client]);
  });

  it('leaves a Client with a request in flight as it is, and trims it once it is idle', async () => {
    const d = dispatcher();
    await sequence(d, 10);
    const inFlight = (await holdOne(d)).answer;
    const [client] = clientsOf(d);
    expect(listed(client!)).toBe(11);
    expect(d.trimFinished()).toBe(0);
    expect(listed(client!)).toBe(11);
    held.shift()!();
    expect(await inFlight).toEqual({ status: 200, body: 'answer to /hold' });
    expect(d.trimFinished()).toBe(11);
    await sequence(d, 3);
    expect(sockets).toHaveLength(1);
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
    expect(await get(d, '/after')).toEqual({ status: 200, body: 'answer to /after' });
  });
});

describe('NodeDispatcher.keepIdleFor', () => {
  // No Keep-Alive header and no idle close on the server's side: undici's own time decides.
  let serverKeep: number;
  beforeAll(() => {
    serverKeep = server.keepAliveTimeout;
    server.keepAliveTimeout = 0;
  });
  afterAll(() => {
    server.keepAliveTimeout = serverKeep;
  });

  it('keeps an idle socket for the time given, then closes it and connects anew', async () => {
    const d = dispatcher();
    d.keepIdleFor(1_500);
    expect(await get(d, '/a')).toEqual({ status: 200, body: 'answer to /a' });
    await new Promise((r) => setTimeout(r, 600));
    expect(await get(d, '/b')).toEqual({ status: 200, body: 'answer to /b' });
    expect(sockets).toHaveLength(1);
    // Closed by the client after ~1.5 s idle (undici's default would keep it 30 s).
    await waitFor('the idle socket to close', () => sockets[0]!.closed, { timeoutMs: 10_000, intervalMs: 20 });
    expect(await get(d, '/c')).toEqual({ status: 200, body: 'answer to /c' });
    expect(sockets).toHaveLength(2);
  });

  it('takes the time from the longest poll interval and timeout, with a margin, within 30 s and 10 minutes', () => {
    expect(idleKeepMs([])).toBe(30_000);
    expect(idleKeepMs([{ intervalMs: 15_000, timeoutMs: 5_000 }])).toBe(30_000);
    expect(
      idleKeepMs([
        { intervalMs: 15_000, timeoutMs: 5_000 },
        { intervalMs: 60_000, timeoutMs: 10_000 },
      ]),
    ).toBe(75_000);
    expect(idleKeepMs([{ intervalMs: 3_600_000, timeoutMs: 5_000 }])).toBe(600_000);
  });
});

describe('NodeDispatcher connection events', () => {
  it("tells an origin's connect and disconnect as its own, and drops the origin once its socket closed", async () => {
    const d = dispatcher();
    const seen: Array<{ event: string; origin: string; first: unknown }> = [];
    const note = (event: string) => (o: URL, targets: readonly unknown[]) =>
      seen.push({ event, origin: o.origin, first: targets[0] });
    d.on('connect', note('connect'));
    d.on('disconnect', note('disconnect'));
    expect((await get(d, '/a')).body).toBe('answer to /a');
    expect(seen).toEqual([{ event: 'connect', origin, first: d }]);
    server.closeAllConnections();
    await waitFor('the disconnect', () => seen.length === 2, { timeoutMs: 10_000, intervalMs: 5 });
    expect(seen[1]).toEqual({ event: 'disconnect', origin, first: d });
    expect((await get(d, '/b')).body).toBe('answer to /b');
    expect(seen.map((s) => s.event)).toEqual(['connect', 'disconnect', 'connect']);
    expect(sockets).toHaveLength(2);
  });
});
