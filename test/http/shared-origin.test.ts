// Nodes behind one origin (a gateway routing by path): each may hold a socket of its own, so a
// node that hangs never makes its healthy neighbours time out, and the origin still holds at most
// one socket per node, reused. Real HTTP to a simulated fleet on one shared port.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import type { NodeTarget, ProbeName } from '../../src/domain.js';
import type { ExporterConfig } from '../../src/config/exporterConfig.js';
import { HttpClient } from '../../src/http/client.js';
import { createDispatcher } from '../../src/http/dispatcher.js';
import { createLogger } from '../../src/logger.js';
import { NodeProber } from '../../src/probe/prober.js';
import { Secrets } from '../../src/redact.js';
import { tickPhase } from '../../src/schedule/scheduler.js';
import { SimFleet } from '../../src/sim/index.js';
import { waitFor } from '../support/processes.js';
import { target } from '../support/targets.js';

const INTERVAL_MS = 1_000;
// Healthy nodes that tick in the hung node's slot: their probes go out right behind its own.
const healthy: string[] = [];
for (let i = 0; healthy.length < 3; i++)
  if (tickPhase(`ok-${i}`, INTERVAL_MS) === tickPhase('hung', INTERVAL_MS)) healthy.push(`ok-${i}`);
const [ok1, ok2, ok3] = healthy as [string, string, string];

let fleet: SimFleet;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  fleet = await SimFleet.start([{ name: 'hung', fault: 'hang' }, ...healthy.map((name) => ({ name }))], {
    layout: 'shared-port',
    keepAliveTimeoutMs: 60_000,
  });
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
afterAll(() => fleet.close());

const nodeTarget = (name: string, over: Partial<NodeTarget> = {}): NodeTarget =>
  target(name, {
    url: fleet.node(name).url,
    network: 'simnet',
    intervalMs: INTERVAL_MS,
    timeoutMs: 1_000,
    probes: ['health', 'blockNumber'],
    rpcNamespace: 'claw',
    ...over,
  });

function client(): { client: HttpClient; prober: (name: string) => NodeProber } {
  const dispatcher = createDispatcher();
  const c = new HttpClient({ dispatcher, secrets: new Secrets() });
  cleanups.push(
    () => c.close(),
    () => dispatcher.destroy(),
  );
  return {
    client: c,
    prober: (name) =>
      new NodeProber(nodeTarget(name), { client: c, maxResponseBytes: 1 << 20, maxUpstreamSeries: 100 }),
  };
}

/** The hung node's probe is sent first; its neighbour's right after, as one scheduler slot does. */
async function neighbours(p: (name: string) => NodeProber, probe: ProbeName) {
  const hung = p('hung').run(probe);
  const ok = p(ok1).run(probe);
  return { hung: await hung, ok: await ok };
}

describe('nodes behind one origin', () => {
  it('all share the origin: one hanging node does not fail its neighbour', async () => {
    expect(new URL(fleet.node('hung').url).origin).toBe(new URL(fleet.node(ok1).url).origin);
    const { client: c, prober } = client();
    c.fitNodes(['hung', ok1].map((n) => nodeTarget(n)));
    for (const probe of ['health', 'blockNumber'] as const) {
      const { hung, ok } = await neighbours(prober, probe);
      expect(hung, probe).toMatchObject({ kind: 'failed', reason: 'timeout' });
      expect(ok, probe).toMatchObject({ kind: 'ok' });
    }
  });

  it('an origin sized for one node queues a second; sized again at a reload, each gets its socket', async () => {
    const { client: c, prober } = client();
    const origin = new URL(fleet.node('hung').url).origin;
    c.fitNodes([nodeTarget('hung')]);
    expect(c.fitOf(origin)?.sockets).toBe(1);
    const before = await neighbours(prober, 'health');
    expect(before.ok).toMatchObject({ kind: 'failed', reason: 'timeout' });
    c.fitNodes([nodeTarget('hung'), nodeTarget(ok1)]);
    expect(c.fitOf(origin)?.sockets).toBe(2);
    const after = await neighbours(prober, 'health');
    expect(after.hung).toMatchObject({ kind: 'failed', reason: 'timeout' });
    expect(after.ok).toMatchObject({ kind: 'ok' });
  });
});

describe('the daemon over a shared origin', () => {
  let daemon: Daemon | undefined;
  let port = 0;
  let connects = 0;
  const onConnect = (msg: unknown) => {
    if (Number((msg as { connectParams?: { port?: string | number } }).connectParams?.port) === port) connects++;
  };
  afterEach(async () => {
    unsubscribe('undici:client:connected', onConnect);
    await daemon?.close(0);
    daemon = undefined;
  });

  const config = (names: string[]): ExporterConfig => ({
    listen: { host: '127.0.0.1', port: 0 },
    polling: { concurrency: 16, maxResponseBytes: 1 << 20, maxUpstreamSeries: 500 },
    nodes: names.map((n) => nodeTarget(n)),
    networks: {},
    evidence: { dir: '/nonexistent', maxBytes: 1 << 20, maxAgeDays: 1 },
  });
  const runs = (name: string) => daemon!.state.get(name)?.probes.get('health')?.runs ?? 0;
  const failures = (name: string) => {
    let n = 0;
    for (const ps of daemon!.state.get(name)!.probes.values()) for (const c of Object.values(ps.failures)) n += c;
    return n;
  };

  it('sizes the origin from the config and on reload: neighbours of a hanging node never fail', async () => {
    daemon = await startDaemon(config(['hung', ok1]), { logger: createLogger({ level: 'silent' }), evidence: false });
    daemon.applyConfig(config(['hung', ok1, ok2, ok3]));
    await waitFor('four rounds of the healthy nodes', () => healthy.every((n) => runs(n) >= 4) && runs('hung') >= 2, {
      timeoutMs: 30_000,
      intervalMs: 50,
    });
    for (const n of healthy) {
      expect(failures(n), n).toBe(0);
      expect(daemon.snapshot().nodes.find((v) => v.name === n)?.up, n).toBe(true);
    }
    expect(daemon.state.get('hung')!.probes.get('health')!.failures.timeout).toBeGreaterThan(0);
  });

  it('holds at most one socket per node behind the origin and opens none once warm', async () => {
    port = Number(new URL(fleet.node(ok1).url).port);
    subscribe('undici:client:connected', onConnect);
    daemon = await startDaemon(config(healthy), { logger: createLogger({ level: 'silent' }), evidence: false });
    await waitFor('two rounds', () => healthy.every((n) => runs(n) >= 2), { timeoutMs: 20_000, intervalMs: 50 });
    const warm = connects;
    const at = Math.min(...healthy.map(runs));
    await waitFor('three more rounds', () => healthy.every((n) => runs(n) >= at + 3), {
      timeoutMs: 20_000,
      intervalMs: 50,
    });
    const failed = healthy.reduce((sum, n) => sum + failures(n), 0);
    // A failed exchange (a timeout on a loaded machine) may close a socket; nothing else may.
    expect(warm).toBeGreaterThanOrEqual(1);
    expect(warm).toBeLessThanOrEqual(healthy.length + failed);
    expect(connects - warm).toBeLessThanOrEqual(failed);
  });
});
