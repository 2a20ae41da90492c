import { describe, expect, it } from 'vitest';
import type { ProbeName, ProbeResult } from '../../src/domain.js';
import type { BuiltInProbeData as ProbeData } from '../../src/probes/index.js';
import { backoffDelay, FleetState, parseRetryAfter } from '../../src/state/fleetState.js';
import { buildSnapshot } from '../../src/state/snapshot.js';
import { target } from '../support/targets.js';

const ok = (data: ProbeData, at = 1_000): ProbeResult => ({
  kind: 'ok',
  probe: data.probe,
  startedAt: at,
  durationMs: 5,
  data,
  namespace: 'claw',
});
const failed = (probe: ProbeName, at = 2_000): ProbeResult => ({
  kind: 'failed',
  probe,
  startedAt: at,
  durationMs: 5,
  reason: 'http_5xx',
  message: 'HTTP 502',
  httpStatus: 502,
});
const health = (height: number, version = '0.5.8', uptimeSecs = 100) => ({
  probe: 'health' as const,
  value: { status: 'ok', version, height, uptimeSecs, peerCount: 4 },
});
const validators = (...addrs: string[]) => ({
  probe: 'validators' as const,
  value: addrs.map((a, i) => ({
    address: a,
    stake: 1_500_000_000_000_000_000_000n + BigInt(i),
    weight: 10 + i,
    agentScore: 50,
  })),
});
const noBackoff = { after: 1000, maxFactor: 1, jitter: 0, random: () => 0 };

describe('buildSnapshot', () => {
  it('computes lag against the highest node up in the same network only', () => {
    const s = new FleetState([target('a'), target('b'), target('c'), target('t', { network: 'testnet' })], noBackoff);
    s.apply('a', ok(health(100)));
    s.apply('b', ok(health(97)));
    s.apply('c', ok(health(120)));
    s.apply('c', failed('health'));
    s.apply('t', ok(health(5000)));
    const snap = buildSnapshot(s.nodes(), {}, 3_000);
    const byName = Object.fromEntries(snap.nodes.map((n) => [n.name, n]));
    // c is down: its old height must not count, nor look fresh.
    expect(byName.c).toMatchObject({ up: false, height: undefined, health: undefined });
    expect(byName.c!.lagBlocks).toBeUndefined();
    expect(byName.a).toMatchObject({ up: true, height: 100, lagBlocks: 0 });
    expect(byName.b).toMatchObject({ up: true, height: 97, lagBlocks: 3 });
    expect(byName.t).toMatchObject({ height: 5000, lagBlocks: 0 });
    const main = snap.networks.find((n) => n.network === 'mainnet')!;
    expect(main).toMatchObject({ nodes: 3, nodesUp: 2, heightMax: 100, heightMin: 97, versions: 1, sourceNode: 'a' });
  });

  it('falls back to blockNumber for the height and counts distinct versions of nodes up', () => {
    const s = new FleetState([target('a'), target('b', { probes: ['blockNumber'] })], noBackoff);
    s.apply('a', ok(health(10, '0.5.8')));
    s.apply('b', ok({ probe: 'blockNumber', value: 12 }));
    const snap = buildSnapshot(s.nodes(), {}, 0);
    expect(snap.nodes.find((n) => n.name === 'b')).toMatchObject({ up: true, height: 12 });
    expect(snap.nodes.find((n) => n.name === 'a')?.lagBlocks).toBe(2);
    expect(snap.networks[0]!.versions).toBe(1);
  });

  it('takes chain values from the highest node up and scales u128 stakes exactly', () => {
    const s = new FleetState([target('a'), target('b')], noBackoff);
    s.apply('a', ok(health(100)));
    s.apply('b', ok(health(101)));
    s.apply('a', ok(validators('aa', 'bb')));
    s.apply('b', ok(validators('aa', 'bb', 'cc')));
    const net = buildSnapshot(s.nodes(), { mainnet: { decimals: 9 } }, 0).networks[0]!;
    expect(net.sourceNode).toBe('b');
    expect(net.validators!.list.map((v) => v.address)).toEqual(['aa', 'bb', 'cc']);
    // 1,500,000,000,000,000,000,000 base units = 1.5e12 tokens at 9 decimals
    expect(net.validators!.list[0]!.stakeTokens).toBe(1_500_000_000_000);
    expect(net.validators!.totalStakeTokens).toBeCloseTo(4_500_000_000_000, 3);
    expect(net.validatorSetMismatch).toBe(1);
    s.apply('a', ok(validators('aa', 'bb', 'cc')));
    expect(buildSnapshot(s.nodes(), {}, 0).networks[0]!.validatorSetMismatch).toBe(0);
  });

  it('breaks a height tie by name in locale order, whatever the node order', () => {
    // In locale order 'a' < 'B' < 'b'; in code units 'B' < 'a' < 'b'.
    const names = ['b', 'B', 'a', 'low'];
    const expected = names.filter((n) => n !== 'low').sort((x, y) => x.localeCompare(y))[0];
    expect(expected).toBe('a');
    for (const order of [names, [...names].reverse()]) {
      const s = new FleetState(
        order.map((n) => target(n)),
        noBackoff,
      );
      for (const n of order) s.apply(n, ok(health(n === 'low' ? 99 : 100)));
      for (const n of order) s.apply(n, ok(validators(`${n}-v`)));
      const net = buildSnapshot(s.nodes(), {}, 0).networks[0]!;
      expect(net.sourceNode).toBe(expected);
      expect(net.validators!.list.map((v) => v.address)).toEqual([`${expected}-v`]);
    }
  });

  it('computes blocks until the mining upgrade from the source node height', () => {
    const s = new FleetState([target('a')], noBackoff);
    s.apply('a', ok(health(1000)));
    s.apply(
      'a',
      ok({
        probe: 'miningStats',
        value: {
          totalMiners: 9,
          activeMiners: 7,
          currentBlockReward: 2_500_000_000n,
          miningUpgradeHeight: 1200,
          upgraded: false,
        },
      }),
    );
    const m = buildSnapshot(s.nodes(), {}, 0).networks[0]!.mining!;
    expect(m).toEqual({
      miners: 9,
      active: 7,
      rewardTokens: 2.5,
      upgradeHeight: 1200,
      upgraded: false,
      blocksUntilUpgrade: 200,
    });
  });
});

describe('FleetState', () => {
  it('marks a probe unsupported without counting a failure, and re-checks it only after the recheck delay', () => {
    const s = new FleetState([target('a')], noBackoff);
    s.apply('a', {
      kind: 'unsupported',
      probe: 'miningStats',
      startedAt: 1_000,
      durationMs: 1,
      message: 'not offered',
    });
    const ps = s.get('a')!.probes.get('miningStats')!;
    expect(ps.supported).toBe(false);
    expect(Object.values(ps.failures).reduce((x, y) => x + y, 0)).toBe(0);
    expect(s.due('a', 'miningStats', 5_000, 60_000)).toBe(false);
    expect(s.due('a', 'miningStats', 61_002, 60_000)).toBe(true);
    expect(s.due('a', 'health', 5_000, 60_000)).toBe(true);
  });

  it('detects a restart from uptime or version and clears namespace and unsupported marks', () => {
    const s = new FleetState([target('a')], noBackoff);
    expect(s.apply('a', ok(health(10, '0.5.8', 1000), 1_000_000)).restarted).toBe(false);
    s.apply('a', { kind: 'unsupported', probe: 'validators', startedAt: 1_000_100, durationMs: 1, message: 'x' });
    // 30 s later uptime says the process started 5 s ago: a new process.
    expect(s.apply('a', ok(health(11, '0.5.8', 5), 1_030_000)).restarted).toBe(true);
    expect(s.get('a')!.probes.get('validators')!.supported).toBe(true);
    expect(s.get('a')!.namespace).toBeUndefined();
    // A plain later poll of the same process is no restart.
    expect(s.apply('a', ok(health(12, '0.5.8', 20), 1_045_000)).restarted).toBe(false);
    expect(s.apply('a', ok(health(12, '0.6.0', 35), 1_060_000)).restarted).toBe(true);
  });

  it('backs off after consecutive failures and honours Retry-After', () => {
    const s = new FleetState([target('a', { intervalMs: 1000 })], {
      after: 2,
      maxFactor: 8,
      jitter: 0,
      random: () => 0,
    });
    s.apply('a', failed('health', 0));
    expect(s.get('a')!.probes.get('health')!.notBefore).toBeUndefined();
    s.apply('a', failed('health', 1000));
    expect(s.get('a')!.probes.get('health')!.notBefore).toBe(1005 + 2000);
    s.apply('a', failed('health', 3000), '30');
    expect(s.get('a')!.probes.get('health')!.notBefore).toBe(3005 + 30_000);
    expect(s.due('a', 'health', 20_000, 1)).toBe(false);
    s.apply('a', ok(health(1), 40_000));
    expect(s.get('a')!.probes.get('health')!).toMatchObject({ notBefore: undefined, consecutiveFailures: 0 });
    expect(s.get('a')!.probes.get('health')!.failures.http_5xx).toBe(3);
  });

  it('keeps state of unchanged nodes on a new config and drops removed ones', () => {
    const s = new FleetState([target('a'), target('b')], noBackoff);
    s.apply('a', ok(health(10)));
    s.apply('b', ok(health(10)));
    const diff = s.setTargets([target('a', { intervalMs: 5000 }), target('c')]);
    expect(diff).toEqual({ added: ['c'], removed: ['b'], changed: [] });
    expect(s.get('a')!.health?.height).toBe(10);
    expect(s.get('b')).toBeUndefined();
    const diff2 = s.setTargets([target('a', { url: 'http://127.0.0.1:2/' }), target('c')]);
    expect(diff2.changed).toEqual(['a']);
    expect(s.get('a')!.health).toBeUndefined();
  });

  it('is ready only when every node finished one round', () => {
    const s = new FleetState([target('a', { probes: ['health', 'blockNumber'] })], noBackoff);
    expect(s.ready()).toBe(false);
    s.apply('a', ok(health(1)));
    expect(s.ready()).toBe(false);
    s.apply('a', failed('blockNumber'));
    expect(s.ready()).toBe(true);
  });
});

describe('backoff helpers', () => {
  it('grows exponentially up to the cap, with jitter only upward', () => {
    const p = { after: 2, maxFactor: 8, jitter: 0.5, random: () => 1 };
    expect(backoffDelay(1, 1000, p)).toBe(0);
    expect(backoffDelay(2, 1000, p)).toBe(3000);
    expect(backoffDelay(3, 1000, p)).toBe(6000);
    expect(backoffDelay(10, 1000, p)).toBe(12000);
  });
  it('parses Retry-After seconds and dates, capped at an hour', () => {
    expect(parseRetryAfter('120', 0)).toBe(120_000);
    expect(parseRetryAfter(new Date(60_000).toUTCString(), 0)).toBe(60_000);
    expect(parseRetryAfter('999999', 0)).toBe(3_600_000);
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
    expect(parseRetryAfter(undefined, 0)).toBeUndefined();
  });
});

describe('NodeState.revision', () => {
  it('changes at each result and shown setting, never at a read or same reload; never reused', () => {
    const s = new FleetState([target('a'), target('b')], noBackoff);
    const a0 = s.get('a')!.revision;
    const b0 = s.get('b')!.revision;
    expect(a0).not.toBe(b0);
    buildSnapshot(s.nodes(), {}, 1_000);
    expect(s.get('a')!.revision).toBe(a0);
    s.apply('a', ok(health(1)));
    const a1 = s.get('a')!.revision;
    expect(a1).not.toBe(a0);
    expect(s.get('b')!.revision).toBe(b0);
    s.apply('a', failed('health'));
    const a2 = s.get('a')!.revision;
    expect(a2).not.toBe(a1);
    s.setTargets([target('a', { labels: { role: 'rpc' } }), target('b')]);
    expect(s.get('a')!.revision).not.toBe(a2);
    // b came back as a new but equal target: nothing a view shows changed.
    expect(s.get('b')!.revision).toBe(b0);
    const a3 = s.get('a')!.revision;
    s.setTargets([target('a', { labels: { role: 'rpc' }, intervalMs: 30_000 }), target('b')]);
    expect(s.get('a')!.revision).not.toBe(a3);
    s.setTargets([target('a'), target('c')]);
    expect([a0, a1, a2, b0]).not.toContain(s.get('c')!.revision);
  });
});
