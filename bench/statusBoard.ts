// `node dist-bench/bench/statusBoard.js [nodes] [changed%]`: the status board refresh alone, in
// this process, without a fleet or a daemon: a FleetState of N nodes with every probe answered,
// then board updates where a share of the nodes got a new poll round since the last update (and
// the network's height moved, as it does between updates). Prints CPU ms per update (medians),
// then what the fleet page and its refresh cost: one page of rows, and the whole list.
import type { NodeTarget, ProbeData, ProbeResult } from '../src/domain.js';
import { FleetState } from '../src/state/fleetState.js';
import { nodesJson, type StatusSource } from '../src/status/api.js';
import { StatusBoard } from '../src/status/board.js';
import { fleetPage, PAGE_ROWS, ROW_BARS } from '../src/status/fleetPage.js';
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
  if (i % 50 === 7)
    return PROBES.map((probe) => ({
      kind: 'failed',
      probe,
      startedAt: at,
      durationMs: 5_000,
      reason: 'timeout',
      message: 'timed out',
    }));
  return PROBES.map((probe, k): ProbeResult => {
    const start = at + k * 4;
    if (probe === 'validators' && i % 100 === 3)
      return {
        kind: 'failed',
        probe,
        startedAt: start,
        durationMs: 3,
        reason: 'http_5xx',
        message: 'HTTP 502',
        httpStatus: 502,
      };
    const data = {
      health: { probe: 'health', value: { status: 'ok', version: '0.5.8', height, peerCount: 8, lastBlockAgeSecs: 1 } },
      metrics: { probe: 'metrics', value: [] },
      blockNumber: { probe: 'blockNumber', value: height },
      miningStats: {
        probe: 'miningStats',
        value: {
          totalMiners: 10,
          activeMiners: 7,
          currentBlockReward: 10n ** 9n,
          miningUpgradeHeight: 200_000,
          upgraded: false,
        },
      },
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
    `status board, ${count} nodes: first update ${first.toFixed(0)} ms; ${perUpdate} nodes changed ` +
      `(${(share * 100).toFixed(1)}%, ${stepMs} ms of results): ` +
      `CPU ${p(costs, 0.5)} ms per update (p90 ${p(costs, 0.9)}); nothing changed: ${p(quiet, 0.5)} ms (medians ` +
      `of ${updates} and 10)`,
  );
  // Pages show each node's last 30 polls: fill every node's history first.
  for (let r = 0; r < ROW_BARS; r++) {
    now += INTERVAL_MS;
    for (let i = 0; i < count; i++) apply(i);
    board.update(state);
  }
  pageCosts(board, now);
}

/** CPU ms (median of 5) and size of what a page view and its refreshes cost the exporter. */
function pageCosts(board: StatusBoard, now: number): void {
  const src: StatusSource = { board, now: () => now, refreshMs: 3750 };
  const views: Array<[string, () => string]> = [
    ['fleet page (page 1)', () => fleetPage(src, { version: 'bench', ready: true })!],
    [
      `refresh of one page (${PAGE_ROWS} rows)`,
      () => JSON.stringify(nodesJson(src, ROW_BARS, { offset: 0, limit: PAGE_ROWS })),
    ],
    [
      'fleet page with every node on it',
      () => fleetPage({ ...src, pageRows: board.nodes().length }, { version: 'bench', ready: true })!,
    ],
    ['every node with its last 30 polls (JSON)', () => JSON.stringify(nodesJson(src, ROW_BARS))],
  ];
  for (const [what, view] of views) {
    const costs: number[] = [];
    let bytes = 0;
    for (let k = 0; k < 5; k++) {
      const c0 = process.cpuUsage();
      bytes = Buffer.byteLength(view());
      costs.push(cpuMsSince(c0));
    }
    console.log(`  ${what}: ${(bytes / 1e6).toFixed(1)} MB, CPU ${percentile(costs, 0.5).toFixed(0)} ms`);
  }
}

main();
