// The watch end to end over loopback: nodes answering as claw-node 0.5.x -> fan-out reads spread
// over the up nodes of the entry's own network -> FleetSnapshot.watch -> ledger_watch_* on /metrics.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import type { ExporterConfig } from '../../src/config/exporterConfig.js';
import { createLogger } from '../../src/logger.js';
import { fanOutComponent } from '../../src/probe/fanOutComponent.js';
import { watchComponent } from '../../src/watch/component.js';
import { entriesOf, type WatchEntry } from '../../src/watch/types.js';
import { waitFor } from '../support/processes.js';
import { target } from '../support/targets.js';
import { minerInfoText, startWatchNode, type WatchChain, type WatchNode } from './support/watchNode.js';

const addr = (n: number) => n.toString(16).padStart(2, '0').repeat(32);
const [VAL_A, VAL_B, VAL_C, VAL_GHOST, RIG, RIG_GHOST, HOT, BAD] = [1, 2, 3, 9, 0x11, 0x12, 0x21, 0x22].map(addr) as [
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
];
const FILLERS = Array.from({ length: 40 }, (_, i) => addr(0x40 + i));

function chain(chainId: string): WatchChain {
  const detail = (a: string, weight: number, uptime: string) =>
    `{"address":"${a}","stake":"20000000000000000001","weight":${weight},"agentScore":50,"commission_bps":500,"delegatedBy":null,"uptime":${uptime},"jailed":false}`;
  return {
    chainId,
    height: 1000,
    epoch: 10,
    validators: [
      { address: VAL_A, stake: '20000000000000000001', weight: 900, agentScore: 50 },
      { address: VAL_B, stake: '20000000000000000001', weight: 500, agentScore: 50 },
      { address: VAL_C, stake: '30000000000000000000', weight: 700, agentScore: 50 },
    ],
    details: {
      [VAL_A]: detail(VAL_A, 900, '{"produced_blocks":3,"expected_blocks":5,"signed_blocks":3,"uptime_pct":60.0}'),
      [VAL_B]: detail(VAL_B, 500, 'null'),
    },
    rewards: {
      1000: `[{"recipient":"${VAL_A}","amount":"5","rewardType":"block_reward"},{"recipient":"${VAL_C}","amount":"5","rewardType":"validator_commission"}]`,
    },
    miners: {
      [RIG]: minerInfoText(RIG, {
        active: true,
        pendingRewards: '18446744073709551619',
        attendance: 0b111111111,
        misses: 0,
        lastCheckin: 9,
        reputationBps: 9000,
      }),
    },
    balances: { [HOT]: '"123456789012345678901"', ...Object.fromEntries(FILLERS.map((a) => [a, '"1000000000"'])) },
    unbonding: {
      [HOT]: `[{"address":"${HOT}","amount":"1000000000","releaseHeight":900},{"address":"${HOT}","amount":"2000000000","releaseHeight":1100}]`,
    },
    garbage: new Set([BAD]),
  };
}

const entries: WatchEntry[] = [
  { kind: 'validator', name: 'val-a', address: VAL_A, network: 'main', commissionBps: 500 },
  { kind: 'validator', name: 'val-b', address: VAL_B, network: 'main' },
  { kind: 'validator', name: 'val-ghost', address: VAL_GHOST, network: 'main' },
  { kind: 'miner', name: 'rig', address: RIG, network: 'main' },
  { kind: 'miner', name: 'rig-ghost', address: RIG_GHOST, network: 'main' },
  { kind: 'account', name: 'hot', address: HOT, network: 'main', minBalance: 25 },
  { kind: 'account', name: 'bad', address: BAD, network: 'main' },
  ...FILLERS.map((a, i): WatchEntry => ({ kind: 'account', name: `filler-${i}`, address: a, network: 'main' })),
];

let main: WatchNode[];
let fork: WatchNode;
let other: WatchNode;
let daemon: Daemon;
let startedAt: number;

beforeAll(async () => {
  main = await Promise.all([1, 2, 3].map(() => startWatchNode(chain('claw-main'), 30)));
  fork = await startWatchNode(chain('claw-fork'));
  other = await startWatchNode(chain('claw-other'));
  const node = (name: string, n: WatchNode, network: string) =>
    target(name, { url: n.url, network, probes: ['health', 'blockNumber'], intervalMs: 300, timeoutMs: 2_000 });
  const config: ExporterConfig = {
    listen: { host: '127.0.0.1', port: 0 },
    polling: { concurrency: 8, maxResponseBytes: 1 << 20, maxUpstreamSeries: 10 },
    nodes: [
      ...main.map((n, i) => node(`m${i + 1}`, n, 'main')),
      node('m-fork', fork, 'main'),
      node('o1', other, 'other'),
    ],
    networks: { main: { decimals: 9, epochBlocks: 100 }, other: { decimals: 9, epochBlocks: 100 } },
    evidence: { dir: '/nonexistent-unused', maxBytes: 1 << 20, maxAgeDays: 1 },
    watch: { intervalMs: 400, entries },
  };
  startedAt = Date.now();
  daemon = await startDaemon(config, {
    logger: createLogger({ level: 'silent' }),
    evidence: false,
    defaultMetrics: false,
    components: [fanOutComponent({ tickMs: 50 }), watchComponent()],
  });
});

afterAll(async () => {
  await daemon?.close();
  for (const n of [...(main ?? []), fork, other]) await n?.close();
});

const metricLines = async () => (await (await request(`${daemon.url}/metrics`)).body.text()).split('\n');
const allRead = () => {
  const w = daemon.snapshot().watch;
  const views = w ? w.entries : [];
  return (
    views.length === entries.length &&
    views.every((v) =>
      v.name === 'bad' ? (v.failures.invalid_response ?? 0) > 0 : v.lastSuccessSeconds !== undefined,
    ) &&
    w
  );
};

describe('watch over loopback', () => {
  it('exports every watched entry, exactly, from the nodes of its own network', async () => {
    await waitFor('every entry read', allRead, { timeoutMs: 20_000, intervalMs: 50 });
    const lines = await metricLines();
    const has = (line: string) => expect(lines, line).toContain(line);
    const A = `network="main",name="val-a",validator="${VAL_A}"`;
    has(`ledger_watch_validator_active{${A}} 1`);
    has(`ledger_watch_validator_rank{${A}} 1`);
    has(`ledger_watch_validator_rewarded{${A}} 1`);
    has(`ledger_watch_validator_commission_ratio{${A}} 0.05`);
    has(`ledger_watch_validator_epoch_blocks{${A},kind="produced"} 3`);
    has(`ledger_watch_validator_seat_margin_ratio{${A}} 1`);
    const B = `network="main",name="val-b",validator="${VAL_B}"`;
    has(`ledger_watch_validator_rank{${B}} 3`);
    // Active and not paid in the newest block: offline this epoch.
    has(`ledger_watch_validator_rewarded{${B}} 0`);
    // An unknown address is a value: not registered, no detail.
    const ghost = lines.filter(
      (l) => l.includes(`validator="${VAL_GHOST}"`) && !/^ledger_watch_(last_success|consecutive_failures)/.test(l),
    );
    expect(ghost.sort()).toEqual([
      `ledger_watch_validator_active{network="main",name="val-ghost",validator="${VAL_GHOST}"} 0`,
    ]);
    has(`ledger_watch_miner_registered{network="main",name="rig-ghost",miner="${RIG_GHOST}"} 0`);
    expect(
      lines.filter((l) => l.includes(`miner="${RIG_GHOST}"`) && l.startsWith('ledger_watch_miner_active')),
    ).toEqual([]);
    const R = `network="main",name="rig",miner="${RIG}"`;
    has(`ledger_watch_miner_attendance_epochs{${R}} 9`);
    has(`ledger_watch_miner_reward_multiplier{${R}} 0.8`);
    has(`ledger_watch_miner_epochs_since_checkin{${R}} 1`);
    const H = `network="main",name="hot",account="${HOT}"`;
    has(`ledger_watch_account_unbonding_tokens{${H},state="pending"} 2`);
    has(`ledger_watch_account_unbonding_tokens{${H},state="claimable"} 1`);
    has(`ledger_watch_account_unbonding_next_release_blocks{${H}} 100`);
    expect(lines.some((l) => l.startsWith(`ledger_watch_account_balance_tokens{${H}} 123456789012.34`))).toBe(true);
  });

  it("parses u128 amounts beyond 2^53 exactly, the miner's JSON number included", () => {
    const reads = daemon.snapshot().fanOut!;
    const rig = reads.get('watchMinerInfo')!.find((r) => r.entity.key === 'rig')!.data as { pendingRewards: bigint };
    expect(rig.pendingRewards).toBe(2n ** 64n + 3n);
    expect(reads.get('watchBalance')!.find((r) => r.entity.key === 'hot')!.data).toBe(123456789012345678901n);
    const detail = reads.get('watchValidatorDetail')!.find((r) => r.entity.key === 'val-a')!.data as { stake: bigint };
    expect(detail.stake).toBe(20000000000000000001n);
  });

  it('fails only the read of an address answered with garbage', async () => {
    const lines = await metricLines();
    const bad = `network="main",name="bad",account="${BAD}"`;
    expect(lines.some((l) => l.startsWith(`ledger_watch_read_failures_total{${bad},reason="invalid_response"} `))).toBe(
      true,
    );
    expect(lines.filter((l) => l.startsWith(`ledger_watch_account_balance_tokens{${bad}`))).toEqual([]);
    const w = daemon.snapshot().watch!;
    expect(
      entriesOf(w, 'account')
        .filter((a) => a.name !== 'bad')
        .every((a) => a.consecutiveFailures === 0 && a.balanceTokens !== undefined),
    ).toBe(true);
  });

  it("asks only nodes of the entry's network and chain, spread over them, at most 8 at once each", () => {
    expect(other.calls).toEqual([]);
    expect(fork.calls).toEqual([]);
    for (const n of main) {
      expect(n.calls.length).toBeGreaterThan(5);
      expect(n.maxInFlight).toBeLessThanOrEqual(8);
    }
    // One getValidators and one getBlockRewards [newest height] per network and interval serve every validator.
    const count = (method: string) => main.reduce((k, n) => k + n.calls.filter((c) => c.method === method).length, 0);
    const intervals = (Date.now() - startedAt) / 400;
    expect(count('getValidators')).toBeGreaterThan(0);
    expect(count('getValidators')).toBeLessThanOrEqual(intervals + 1);
    expect(count('getBlockRewards')).toBeLessThanOrEqual(intervals + 1);
    expect(
      main.flatMap((n) => n.calls.filter((c) => c.method === 'getBlockRewards').map((c) => c.params)),
    ).toContainEqual([1000]);
  });

  it('reads through another node when one fails, and never counts the entry as failed', async () => {
    main[1]!.failWatch = true;
    const before = main[1]!.calls.length;
    const since = Date.now() / 1000;
    await waitFor(
      'a full round after the failure began',
      () => {
        const w = daemon.snapshot().watch!;
        return (
          w.entries.every((v) => v.name === 'bad' || (v.lastSuccessSeconds ?? 0) > since + 0.5) &&
          main[1]!.calls.length > before
        );
      },
      { timeoutMs: 20_000, intervalMs: 50 },
    );
    const w = daemon.snapshot().watch!;
    for (const v of w.entries) {
      if (v.name === 'bad') continue;
      expect(v.consecutiveFailures, v.name).toBe(0);
      expect(v.failures, v.name).toEqual({});
    }
    main[1]!.failWatch = false;
  });
});
