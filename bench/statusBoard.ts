// `node dist-bench/bench/statusBoard.js [nodes] [changed%]`: the status board refresh alone, in
// this process, without a fleet or a daemon: a FleetState of N nodes with every probe answered,
// then board updates where a share of the nodes got a new poll round since the last update (and
// the network's height moved, as it does between updates). Prints CPU ms per update (medians).
import type { NodeTarget, ProbeData, ProbeResult } from '../src/domain.js';
import { FleetState } from '../src/state/fleetState.js';
import { StatusBoard } from '../src/status/board.js';
import { percentile } from './proc.js';

const INTERVAL_MS = 15_000;
const PROBES = ['health', 'metrics', 'blockNumber', 'miningStats', 'validators'] as const;

function targets(count: number): NodeTarget[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `node-${i}`,
    url: `http://127.0.0.1:1/n${i}`,
    network: i % 2 ? 'testnet' : 'mainnet',
    labels: { role: 'bench' },
    intervalMs: INTERVAL_MS,
    timeoutMs: 5_000,
    rpcNamespace: 'claw',
    probes: [...PROBES],
    headers: {},
  }));
}

/** One poll round of node i: 2% of nodes time out on every probe, 1% fail validators only. */
function round(i: number, at: number, height: number): ProbeResult[] {
  if (i % 50 === 7) return PROBES.map((probe) => ({ kind: 'failed', probe, startedAt: at, durationMs: 5_000, reason: 'timeout', message: 'timed out' }));
  return PROBES.map((probe, k): ProbeResult => {
    const start = at + k * 4;
    if (probe === 'validators' && i % 100 === 3) return { kind: 'failed', probe, startedAt: start, durationMs: 3, reason: 'http_5xx', message: 'HTTP 502', httpStatus: 502 };
    const data = {
      health: { probe: 'health', value: { status: 'ok', version: '0.5.8', height, peerCount: 8, lastBlockAgeSecs: 1 } },
      metrics: { probe: 'metrics', value: [] },
      blockNumber: { probe: 'blockNumber', value: height },
      miningStats: { probe: 'miningStats', value: { totalMiners: 10, activeMiners: 7, currentBlockReward: 10n ** 9n, miningUpgradeHeight: 200_000, upgraded: false } },
      validators: { probe: 'validators', value: [] },
    }[probe] as ProbeData;
    return { kind: 'ok', probe, startedAt: start, durationMs: 3, data, namespace: 'claw' };
  });
}

function cpuMsSince(from: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
}

function main(): void {
  const count = Number(process.argv[2] ?? 10_000);
  const share = Number(process.argv[3] ?? 3) / 100;
  const updates = 40;
  let now = 1_800_000_000_000;
  const state = new FleetState(targets(count), { after: 2, maxFactor: 8, jitter: 0, random: () => 0 });
  const board = new StatusBoard({ now: () => now });
  const apply = (i: number) => {
    for (const r of round(i, now - 100, 100_000 + Math.floor(now / 3000))) {
      state.apply(`node-${i}`, r);
      board.noteResult(`node-${i}`, r);
    }
  };
  for (let i = 0; i < count; i++) apply(i);
  let c0 = process.cpuUsage();
  board.update(state);
  const first = cpuMsSince(c0);
  // Results arrive spread over the interval: a share of the fleet polled since the last update.
  const perUpdate = Math.max(1, Math.round(count * share));
  const stepMs = Math.round((INTERVAL_MS * perUpdate) / count);
  const costs: number[] = [];
  let next = 0;
  for (let u = 0; u < updates; u++) {
    now += stepMs;
    for (let k = 0; k < perUpdate; k++, next = (next + 1) % count) apply(next);
    c0 = process.cpuUsage();
    board.update(state);
    costs.push(cpuMsSince(c0));
  }
  const quiet: number[] = [];
  for (let u = 0; u < 10; u++) {
    now += 1;
    c0 = process.cpuUsage();
    board.update(state);
    quiet.push(cpuMsSince(c0));
  }
  const p = (xs: number[], q: number) => percentile(xs.slice(2), q).toFixed(1);
  console.log(
    `status board, ${count} nodes: first update ${first.toFixed(0)} ms; ${perUpdate} nodes changed (${(share * 100).toFixed(1)}%, ${stepMs} ms of results): ` +
      `CPU ${p(costs, 0.5)} ms per update (p90 ${p(costs, 0.9)}); nothing changed: ${p(quiet, 0.5)} ms (medians of ${updates} and 10)`,
  );
}

main();
