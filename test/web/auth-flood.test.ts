// Issue 45 fault 8: a flood of wrong passwords must not stall polling. Each wrong password costs a
// cost-10 bcrypt compare (~70 ms); run on the event loop, 16 clients took it and node polls due
// every 500 ms ran seconds apart. The daemon here runs with basic auth (a real cost-10 hash) and
// one simulated node; 16 clients from their own loopback addresses send wrong passwords without
// pause. Polls must keep (nearly) their schedule, a repeating client is slowed (429 with
// Retry-After), and a right password, never seen before, still gets in during the flood.
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import { createLogger } from '../../src/logger.js';
import { SimFleet } from '../../src/sim/index.js';
import { daemonConfig, target } from '../support/targets.js';
import { loadUntil, loopbackClient, paceRecorder } from '../support/pollPace.js';

const INTERVAL_MS = 500;
const FLOOD_MS = 6_000;
const CLIENTS = 16;
const basic = (user: string, pw: string) => `Basic ${Buffer.from(`${user}:${pw}`).toString('base64')}`;

let fleet: SimFleet;
let daemon: Daemon;
const pace = paceRecorder('health', 1);

beforeAll(async () => {
  fleet = await SimFleet.start([{ name: 'n1' }], { host: '127.0.0.1', layout: 'port-per-node' });
  const node = fleet.node('n1');
  daemon = await startDaemon(
    daemonConfig([target('n1', { url: node.url, probes: ['health'], intervalMs: INTERVAL_MS, timeoutMs: 400 })]),
    {
      logger: createLogger({ level: 'silent' }),
      evidence: false,
      defaultMetrics: false,
      components: [pace.component],
      web: { basicAuthUsers: new Map([['ops', bcrypt.hashSync('right-password', 10)]]) },
    },
  );
});

afterAll(async () => {
  await daemon?.close();
  await fleet?.close();
});

describe('a flood of wrong passwords', () => {
  it('leaves polls on schedule and lets a right password in', async () => {
    // Warm-up: the first poll round and the worker start are not part of the measure.
    await new Promise((r) => setTimeout(r, 1_500));
    const clients = Array.from({ length: CLIENTS }, (_, i) => loopbackClient(`127.0.0.${i + 2}`));
    const from = performance.now();
    const until = from + FLOOD_MS;
    const flood = loadUntil(CLIENTS, until, (i) =>
      clients[i]!.get(`${daemon.url}/metrics`, { authorization: basic('ops', `wrong-${i}`) }),
    );
    // Midway, someone with the right password (never checked before, so not cached) signs in.
    await new Promise((r) => setTimeout(r, FLOOD_MS / 2));
    const rightful = loopbackClient('127.0.0.100');
    const right = await rightful.get(`${daemon.url}/metrics`, { authorization: basic('ops', 'right-password') });
    const statuses = await flood;
    const report = pace.report(from, until, INTERVAL_MS);
    for (const c of [...clients, rightful]) c.close();
    console.log(`wrong-password flood: ${JSON.stringify(report)}, answers ${JSON.stringify([...statuses])}`);

    expect(right.status).toBe(200);
    expect(statuses.get(200) ?? 0).toBe(0);
    expect(statuses.get(401) ?? 0).toBeGreaterThan(CLIENTS);
    // On schedule: at most one poll in ten missing from the window (before the fix: 3 of 12).
    expect(report.done).toBeGreaterThanOrEqual(Math.floor(report.expected * 0.9));
  });

  it('slows a client that keeps failing (429 with Retry-After, no compare), not other users or addresses', async () => {
    const attacker = loopbackClient('127.0.1.2');
    const url = `${daemon.url}/healthz`;
    const wrong = { authorization: basic('ops', 'guess') };
    const first = [];
    for (let i = 0; i < 5; i++) first.push((await attacker.get(url, wrong)).status);
    expect(first).toEqual([401, 401, 401, 401, 401]);
    const slowed = await attacker.get(url, wrong);
    expect(slowed.status).toBe(429);
    expect(Number(slowed.retryAfter)).toBeGreaterThanOrEqual(1);
    // The same address with another user name, and the user from another address, still get in.
    expect((await attacker.get(url, { authorization: basic('nobody', 'x') })).status).toBe(401);
    const elsewhere = loopbackClient('127.0.1.3');
    expect((await elsewhere.get(url, { authorization: basic('ops', 'right-password') })).status).toBe(200);
    // Once the wait is over the client may try again; a right password clears its failures.
    await new Promise((r) => setTimeout(r, Number(slowed.retryAfter) * 1000 + 100));
    expect((await attacker.get(url, { authorization: basic('ops', 'right-password') })).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await attacker.get(url, wrong)).status).toBe(401);
    expect((await attacker.get(url, wrong)).status).toBe(429);
    attacker.close();
    elsewhere.close();
  });
});
