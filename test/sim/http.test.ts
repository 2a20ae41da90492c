import { execFile, execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimFleet, BLOCK_TIME_BUCKETS } from '../../src/sim/index.js';
import { getJson, HEX64, http, manualClock, rpc } from './helpers.js';
import { waitFor } from '../support/processes.js';

function hasPromtool(): boolean {
  try {
    execFileSync('promtool', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const promtool = hasPromtool();
if (!promtool && process.env.REQUIRE_PROMETHEUS === '1')
  throw new Error('REQUIRE_PROMETHEUS=1 but promtool is not installed');
if (!promtool)
  console.warn('promtool not found: skipping `promtool check metrics` (install Debian package prometheus)');

const clock = manualClock();
let fleet: SimFleet;

beforeAll(async () => {
  fleet = await SimFleet.start(
    [
      { name: 'cur', build: 'current', peers: 5 },
      { name: 'stk', build: 'staking' },
      { name: 'old', build: 'earliest' },
    ],
    { blockTimeMs: 3_000, now: clock.now },
  );
});
afterAll(() => fleet.close());

describe('GET /health', () => {
  const INTS = ['height', 'epoch', 'peer_count', 'mempool_size', 'last_block_age_secs', 'uptime_secs'];

  it('has every field for current and staking builds', async () => {
    for (const name of ['cur', 'stk']) {
      const h = await getJson(`${fleet.node(name).url}/health`);
      expect(Object.keys(h).sort(), name).toEqual([...INTS, 'chain_id', 'genesis_hash', 'status', 'version'].sort());
      for (const k of INTS) expect(Number.isInteger(h[k]), `${name}.${k}`).toBe(true);
      expect(h.status).toBe('ok');
      expect(h.version).toMatch(/^\d+\.\d+\.\d+$/);
      expect(h.genesis_hash).toMatch(HEX64);
      expect(typeof h.chain_id).toBe('string');
      expect(h.height).toBe(fleet.node(name).height());
    }
    expect((await getJson(`${fleet.node('cur').url}/health`)).peer_count).toBe(5);
  });

  it('lacks chain_id and genesis_hash on the earliest build', async () => {
    const h = await getJson(`${fleet.node('old').url}/health`);
    expect(Object.keys(h).sort()).toEqual([...INTS, 'status', 'version'].sort());
  });

  it('counts uptime from the start', async () => {
    const before = (await getJson(`${fleet.node('cur').url}/health`)).uptime_secs as number;
    clock.advance(10_000);
    const after = (await getJson(`${fleet.node('cur').url}/health`)).uptime_secs as number;
    expect(after - before).toBe(10);
  });
});

describe('GET /metrics', () => {
  it('is Prometheus text 0.0.4 shaped like the Rust prometheus crate', async () => {
    clock.advance(30_000); // some blocks since start, so counters and buckets are non-zero
    const r = await http(`${fleet.node('cur').url}/metrics`);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/plain; version=0.0.4');
    const lines = r.body.trimEnd().split('\n');
    const families: string[] = [];
    for (let i = 0; i < lines.length; i++) {
      const m = /^# HELP (\S+) .+$/.exec(lines[i]!);
      if (!m) continue;
      families.push(m[1]!);
      expect(lines[i + 1]).toMatch(new RegExp(`^# TYPE ${m[1]} (counter|gauge|histogram)$`));
    }
    expect(families).toEqual([
      'block_height',
      'block_time_seconds',
      'blocks_total',
      'mempool_size',
      'peers_connected',
      'transactions_total',
    ]);
    expect(families).toEqual([...families].sort());
    expect(r.body).toContain('# TYPE block_time_seconds histogram');
    expect(r.body).toContain('# TYPE blocks_total counter');
    expect(r.body).toContain('# TYPE block_height gauge');

    const buckets = [...r.body.matchAll(/^block_time_seconds_bucket\{le="([^"]+)"\} (\d+)$/gm)];
    expect(buckets.map((b) => b[1])).toEqual([...BLOCK_TIME_BUCKETS.map(String), '+Inf']);
    const counts = buckets.map((b) => Number(b[2]));
    for (let i = 1; i < counts.length; i++) expect(counts[i]!).toBeGreaterThanOrEqual(counts[i - 1]!);
    const count = Number(/^block_time_seconds_count (\S+)$/m.exec(r.body)![1]);
    expect(count).toBe(counts.at(-1));
    expect(count).toBeGreaterThan(0);
    expect(Number(/^block_time_seconds_sum (\S+)$/m.exec(r.body)![1])).toBeCloseTo(count * 3, 6);
    expect(Number(/^block_height (\d+)$/m.exec(r.body)![1])).toBe(fleet.node('cur').height());
    expect(Number(/^peers_connected (\d+)$/m.exec(r.body)![1])).toBe(5);
  });

  it.skipIf(!promtool)('passes promtool check metrics', async () => {
    const { body } = await http(`${fleet.node('stk').url}/metrics`);
    const out = await new Promise<{ code: number; text: string }>((resolve) => {
      const child = execFile('promtool', ['check', 'metrics'], (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, text: stdout + stderr }),
      );
      child.stdin!.end(body);
    });
    expect(out.text).toBe('');
    expect(out.code).toBe(0);
  });
});

describe('other plain endpoints and routing', () => {
  it('serves /peers and /version (absent on the earliest build)', async () => {
    const peers = await getJson(`${fleet.node('cur').url}/peers`);
    expect(peers.count).toBe(5);
    expect((peers.peers as unknown[]).length).toBe(5);
    const version = await getJson(`${fleet.node('cur').url}/version`);
    expect(version.version).toBe((await getJson(`${fleet.node('cur').url}/health`)).version);
    expect((await http(`${fleet.node('old').url}/version`)).status).toBe(404);
  });

  it('answers unknown paths 404 and wrong methods 405', async () => {
    const u = fleet.node('cur').url;
    expect((await http(`${u}/nope`)).status).toBe(404);
    expect((await http(u)).status).toBe(405);
    expect(
      (await http(`${u}/health`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }))
        .status,
    ).toBe(405);
  });
});

describe('shared-port layout', () => {
  it('serves every node under its own path prefix on one port', async () => {
    const shared = await SimFleet.start([{ name: 'a' }, { name: 'b', build: 'earliest' }, { name: 'odd name/1' }], {
      layout: 'shared-port',
      now: clock.now,
    });
    try {
      const [a, b, odd] = [shared.node('a'), shared.node('b'), shared.node('odd name/1')];
      expect(new URL(a.url).port).toBe(new URL(b.url).port);
      expect(new URL(a.url).pathname).toBe('/n/a');
      expect((await rpc(a.url, 'claw_blockNumber')).result).toBe(a.height());
      expect((await rpc(`${a.url}/`, 'claw_blockNumber')).result).toBe(a.height());
      expect((await rpc(b.url, 'clw_blockNumber')).result).toBe(b.height());
      expect((await rpc(odd.url, 'claw_blockNumber')).result).toBe(odd.height());
      expect(Object.keys(await getJson(`${b.url}/health`))).not.toContain('chain_id');
      expect((await http(`${a.url}/metrics`)).body).toContain('# TYPE block_height gauge');
      const origin = new URL(a.url).origin;
      expect((await http(`${origin}/n/missing/health`)).status).toBe(404);
      expect((await http(`${origin}/health`)).status).toBe(404);
      expect(a.requestCount()).toBe(3);
      expect(b.requestCount()).toBe(2);
    } finally {
      await shared.close();
    }
  });
});

describe('the clock drives the chain', () => {
  it('advances the height with a short real block time', async () => {
    const fast = await SimFleet.start([{ name: 'f' }], { blockTimeMs: 50 });
    try {
      const start = (await rpc(fast.node('f').url, 'claw_blockNumber')).result as number;
      await waitFor(
        'three new blocks',
        async () => ((await rpc(fast.node('f').url, 'claw_blockNumber')).result as number) >= start + 3,
        { timeoutMs: 5_000, intervalMs: 20 },
      );
      const h = await getJson(`${fast.node('f').url}/health`);
      expect(h.height as number).toBeGreaterThanOrEqual(start + 3);
      expect(h.status).toBe('ok');
    } finally {
      await fast.close();
    }
  });

  it('derives the same chain from the same network name in another fleet', async () => {
    const again = await SimFleet.start([{ name: 'x' }], { now: clock.now });
    try {
      const mine = await rpc(fleet.node('cur').url, 'claw_getValidators');
      const theirs = await rpc(again.node('x').url, 'claw_getValidators');
      expect(theirs.result).toEqual(mine.result);
      const g1 = (await getJson(`${fleet.node('cur').url}/health`)).genesis_hash;
      expect((await getJson(`${again.node('x').url}/health`)).genesis_hash).toBe(g1);
    } finally {
      await again.close();
    }
  });
});
