// `npm run bench:watch`: the watch's cost beside node polling. A simulated fleet (every node its
// own port) polled as operators run it; window 1 without watch:, window 2 with N watched entries
// (validators, miners, accounts of both networks) read every 30 s. Prints CPU per node-poll, the
// added CPU per watched read, overruns, tick lateness and the most watch calls in flight per node.
// Options: --nodes 1000 --entries 1000 --interval 15s --watch-interval 30s --measure 60s
// --alerting 15s (the built-in alert engine evaluating every 15 s, no receivers; 0: off), --mix all (accounts
// with a token and an allowance, service providers, delegators and agents beside validators, miners and accounts).
// Figures are printed, never asserted.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Daemon } from '../src/daemon/index.js';
import { startDaemon } from '../src/daemon/index.js';
import { standardComponents } from '../src/daemon/features.js';
import { simulatedFleetConfig } from '../src/demo/fleet.js';
import type { ExporterConfig } from '../src/config/exporterConfig.js';
import type { AlertingSettings } from '../src/alerting/settings.js';
import { applyHeapPolicy } from '../src/heapPolicy.js';
import { createLogger } from '../src/logger.js';
import type { LazyComponent } from '../src/daemon/lazy.js';
import type { FanOutComponent } from '../src/probe/fanOutComponent.js';
import type { WatchEntry } from '../src/watch/types.js';
import { hex32 } from '../src/sim/rng.js';
import { startFleet } from './fleet.js';
import { cpuSplitFromProc } from './proc.js';

const { values: v } = parseArgs({
  options: {
    nodes: { type: 'string', default: '1000' },
    entries: { type: 'string', default: '1000' },
    interval: { type: 'string', default: '15s' },
    'watch-interval': { type: 'string', default: '30s' },
    measure: { type: 'string', default: '60s' },
    alerting: { type: 'string', default: '15s' },
    // all: accounts with a custom token and an allowance each, and service providers (one registry read per network).
    mix: { type: 'string', default: 'classic' },
  },
});
const ms = (s: string) => Number(/^(\d+)/.exec(s)![1]) * (s.endsWith('ms') ? 1 : s.endsWith('m') ? 60_000 : 1000);
const sleep = (t: number) => new Promise((r) => setTimeout(r, t));

/** Entries spread over kinds and networks; addresses the simulator may not know are values too. */
function entries(n: number, networks: string[], mix = 'classic'): WatchEntry[] {
  const kinds =
    mix === 'all'
      ? (['validator', 'miner', 'account', 'provider', 'delegator', 'agent'] as const)
      : (['validator', 'miner', 'account'] as const);
  return Array.from({ length: n }, (_, i): WatchEntry => {
    const kind = kinds[i % kinds.length]!;
    const network = networks[i % networks.length]!;
    const address = (i + 1).toString(16).padStart(64, 'a');
    // The simulator's first token of the network (src/sim/chain.ts drawTokens).
    const tokenId = hex32(`${network}:token:0`);
    const tokens =
      mix === 'all' && kind === 'account'
        ? { tokens: [{ tokenId, minBalance: 1 }], allowances: [{ spender: 'b'.repeat(64), tokenId, max: 1 }] }
        : {};
    return { kind, name: `w-${i}`, address, network, ...tokens };
  });
}

/** Every node's poll overruns, from the exporter's own /metrics. */
async function overruns(d: Daemon): Promise<number> {
  const text = await (await fetch(`${d.url}/metrics`)).text();
  let n = 0;
  for (const m of text.matchAll(/^ledger_exporter_poll_overruns_total(?:\{[^}]*\})? (\S+)$/gm)) n += Number(m[1]);
  return n;
}

function polls(d: Daemon): number {
  let n = 0;
  for (const node of d.state.nodes()) for (const p of node.probes.values()) n += p.runs;
  return n;
}

/** The fan-out is loaded once a config has a watch: (daemon/lazy.ts); until then it has read nothing. */
const loaded = (lazy: LazyComponent) => lazy.loaded() as FanOutComponent | undefined;

async function window(d: Daemon, fanOut: LazyComponent, measureMs: number) {
  d.scheduling.resetLateness();
  const p0 = polls(d);
  const r0 = loaded(fanOut)?.reads.completed ?? 0;
  const c0 = cpuSplitFromProc();
  await sleep(measureMs);
  const c1 = cpuSplitFromProc();
  return {
    cpuMs: c1.userMs + c1.sysMs - c0.userMs - c0.sysMs,
    polls: polls(d) - p0,
    reads: (loaded(fanOut)?.reads.completed ?? 0) - r0,
    late: d.scheduling.stats().lateness,
  };
}

/** Alerts evaluated as operators run them (snapshots, watch views, the engine), sent nowhere. */
function alerting(dir: string, evaluationIntervalMs: number): AlertingSettings {
  const timing = { groupWaitMs: 30_000, groupIntervalMs: 300_000, repeatIntervalMs: 14_400_000 };
  return {
    stateDir: dir,
    evaluationIntervalMs,
    runbookBase: 'https://example.invalid/runbooks',
    rules: {},
    routing: { groupBy: ['alertname'], routes: [], receivers: [], sendResolved: true, ...timing },
    receivers: [],
    maintenance: [],
  };
}

async function main(): Promise<void> {
  const nodes = Number(v.nodes);
  const measureMs = ms(v.measure);
  const dir = mkdtempSync(join(tmpdir(), 'lfe-bench-watch-'));
  const fleet = await startFleet(nodes, { layout: 'port-per-node', perProcess: 250 });
  applyHeapPolicy();
  const logger = createLogger({ level: 'error' });
  const components = standardComponents(logger);
  const fanOut = components.find((c) => c.name === 'fan-out') as LazyComponent;
  const base: ExporterConfig = simulatedFleetConfig(fleet.nodes, {
    listen: { host: '127.0.0.1', port: 0 },
    intervalMs: ms(v.interval),
    timeoutMs: 5_000,
    evidenceDir: dir,
  });
  const evaluationIntervalMs = ms(v.alerting);
  if (evaluationIntervalMs > 0) base.alerting = alerting(dir, evaluationIntervalMs);
  const daemon = await startDaemon(base, { logger, components, evidence: false });
  try {
    while (!daemon.ready()) await sleep(200);
    await sleep(ms(v.interval) * 2);
    const off = await window(daemon, fanOut, measureMs);
    const rss0 = process.memoryUsage().rss;
    const overruns0 = await overruns(daemon);
    const watchMs = ms(v['watch-interval']);
    daemon.applyConfig({
      ...base,
      watch: {
        intervalMs: watchMs,
        entries: entries(Number(v.entries), [...new Set(fleet.nodes.map((n) => n.network))], v.mix),
      },
    });
    await sleep(watchMs + 5_000);
    const on = await window(daemon, fanOut, measureMs);
    const perPoll = off.cpuMs / off.polls;
    const added = on.cpuMs - on.polls * perPoll;
    const alerts = evaluationIntervalMs > 0 ? `alerts evaluated every ${v.alerting}` : 'no alerting';
    console.log(
      `nodes ${nodes}, node interval ${v.interval}, ${v.entries} watched entries every ${v['watch-interval']}, ` +
        `${alerts}, windows of ${v.measure}`,
    );
    console.log(
      `without watch: ${off.polls} node-polls, CPU ${perPoll.toFixed(3)} ms per node-poll, tick lateness p99 ` +
        `${off.late.p99Ms.toFixed(1)} ms`,
    );
    console.log(
      `with watch:    ${on.polls} node-polls, ${on.reads} watch reads, CPU ${(on.cpuMs / on.polls).toFixed(3)} ` +
        `ms per node-poll all in, added ${(added / Math.max(1, on.reads)).toFixed(3)} ms per watched read, tick ` +
        `lateness p99 ${on.late.p99Ms.toFixed(1)} ms`,
    );
    console.log(`most watch calls in flight to one node: ${loaded(fanOut)?.reader()?.maxInFlightPerNode ?? 0}`);
    const perInterval = (on.reads * watchMs) / measureMs;
    const nets = new Set(fleet.nodes.map((n) => n.network)).size;
    console.log(
      `watch reads per interval: ${perInterval.toFixed(0)} (${(perInterval / nodes).toFixed(2)} per node), ` +
        `RSS added ${((process.memoryUsage().rss - rss0) / 2 ** 20).toFixed(0)} MiB, poll overruns added ` +
        `${(await overruns(daemon)) - overruns0}, ${nets} networks (mix ${v.mix})`,
    );
    const t0 = performance.now();
    for (let i = 0; i < 5; i++) daemon.snapshot();
    console.log(`a snapshot with the watch: ${((performance.now() - t0) / 5).toFixed(1)} ms`);
  } finally {
    await daemon.close();
    await fleet.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
