// The exporter polling the fleet with its own config defaults, in a fresh process. Window 1:
// polling only (CPU per node-poll, connections opened, lateness, overruns). Window 2: polling
// with a scrape every few seconds, as Prometheus does (render and whole-scrape times, gzip and
// plain in turn, and the CPU a scrape adds to the polling's; RSS).
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startDaemon, type Daemon } from '../src/daemon/index.js';
import { standardComponents } from '../src/daemon/features.js';
import { simulatedFleetConfig } from '../src/demo/fleet.js';
import { applyHeapPolicy } from '../src/heapPolicy.js';
import { createLogger } from '../src/logger.js';
import { countConnections, type FleetNode } from './fleet.js';
import { cpuSplitFromProc, percentile, RssSampler, socketsHeld, WARM_POLLS, type MemoryFigures } from './proc.js';
import type { ScrapeReply, ScrapeRequest } from './scraper.js';
import { streamedScrape } from './streamedScrape.js';

export interface ExporterResult {
  polls: number;
  cpuPerPollMs: number;
  /** Share of that CPU spent in the kernel. */
  sysShare: number;
  /** CPU over wall time in window 1, as a share of one core. */
  coreShare: number;
  connectsPerMin: number;
  sockets: number;
  renderP50Ms: number;
  /** CPU of the process during each render (other threads included: GC helpers), not wall time. */
  renderCpuP50Ms: number;
  renderMaxMs: number;
  /** Whole gzip scrapes, from another process. */
  scrapeP50Ms: number;
  scrapeMaxMs: number;
  /** Whole plain (uncompressed) scrapes, from another process. */
  plainScrapeP50Ms: number;
  plainScrapeMaxMs: number;
  /** The exporter's CPU during a whole scrape beyond what polling costs over the same time (window 1's rate). */
  gzipScrapeCpuP50Ms: number;
  plainScrapeCpuP50Ms: number;
  bytes: number;
  steadyRss: number;
  peakRss: number;
  /** Medians over the steady windows: what RSS is made of. */
  steadyMemory: MemoryFigures;
  lateP50Ms: number;
  lateP99Ms: number;
  lateMaxMs: number;
  overruns: number;
  failedPolls: number;
}

export interface ExporterPhaseOptions {
  intervalMs: number;
  measureMs: number;
  scrapeWindowMs: number;
  scrapeEveryMs: number;
  concurrency?: number;
  evidenceDir: string;
}

/** The longest the warm-up may take (a slow fleet). */
const WARM_MAX_MS = 90_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Node-polls so far (runs of the health probe, which every node has on every tick) and failed ones. */
function pollCounts(d: Daemon): { polls: number; failed: number } {
  let polls = 0;
  let failed = 0;
  for (const n of d.state.nodes()) {
    const h = n.probes.get('health');
    polls += h?.runs ?? 0;
    for (const c of Object.values(h?.failures ?? {})) failed += c;
  }
  return { polls, failed };
}

/** Prometheus's side of a scrape, in a process of its own (bench/scraper.ts). */
class Scraper {
  private readonly child: ChildProcess = fork(fileURLToPath(new URL('./scraper.js', import.meta.url)), [], {
    execArgv: [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });

  scrape(url: string, gzip = true): Promise<ScrapeReply> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`bench scraper exited with ${code}`));
      this.child.once('exit', onExit);
      this.child.once('message', (r: ScrapeReply) => {
        this.child.off('exit', onExit);
        if (r.error !== undefined) reject(new Error(`bench scrape failed: ${r.error}`));
        else resolve(r);
      });
      this.child.send({ url, gzip } satisfies ScrapeRequest);
    });
  }

  stop(): void {
    this.child.kill();
  }
}

export async function runExporter(nodes: FleetNode[], opts: ExporterPhaseOptions): Promise<ExporterResult> {
  const rss = new RssSampler();
  const config = simulatedFleetConfig(nodes, {
    listen: { host: '127.0.0.1', port: 0 },
    intervalMs: opts.intervalMs,
    timeoutMs: Math.min(5_000, opts.intervalMs - 1),
    evidenceDir: opts.evidenceDir,
    ...(opts.concurrency !== undefined ? { concurrency: opts.concurrency } : {}),
    labels: () => ({ role: 'bench' }),
  });
  // The parts the CLI runs (status board, alerting, heartbeat), so the figures are what operators get.
  applyHeapPolicy(process.execArgv, nodes.length); // as the CLI does (the young generation fitted to the fleet)
  const logger = createLogger({ level: 'error' });
  const daemon = await startDaemon(config, { logger, components: standardComponents(logger) });
  const conns = countConnections();
  const scraper = new Scraper();
  try {
    const readyBy = Date.now() + 3 * opts.intervalMs + 120_000;
    while (!daemon.ready() && Date.now() < readyBy) await sleep(100);
    // Warm until steady: namespaces known, sockets open, and V8's optimising compiler done with
    // the hot paths, which takes a few thousand node-polls: at 1,000 nodes / 15 s, the round after
    // one warm round cost a fifth to a third more CPU per node-poll than the fifth round. The
    // floor warms too.
    const warmFrom = pollCounts(daemon).polls;
    const warmBy = Date.now() + Math.max(opts.intervalMs, WARM_MAX_MS);
    await sleep(opts.intervalMs);
    while (pollCounts(daemon).polls - warmFrom < WARM_POLLS && Date.now() < warmBy)
      await sleep(Math.min(1_000, opts.intervalMs));

    // Window 1: polling only.
    const overruns0 = (await scraper.scrape(daemon.url)).overruns;
    daemon.scheduling.resetLateness();
    conns.reset();
    rss.mark();
    const p0 = pollCounts(daemon);
    const cpu0 = cpuSplitFromProc();
    const t0 = performance.now();
    await sleep(opts.measureMs);
    const cpu1 = cpuSplitFromProc();
    const sysMs = cpu1.sysMs - cpu0.sysMs;
    const cpu = cpu1.userMs - cpu0.userMs + sysMs;
    const wall = performance.now() - t0;
    const p1 = pollCounts(daemon);
    const connects = conns.count();
    const late = daemon.scheduling.stats().lateness;
    const sockets = socketsHeld() - 2; // minus the exporter's listening socket and the scraper's IPC channel

    // Window 2: polling while Prometheus scrapes.
    const renders: number[] = [];
    const renderCpus: number[] = [];
    const scrapes = { gzip: [] as number[], plain: [] as number[] };
    const scrapeCpus = { gzip: [] as number[], plain: [] as number[] };
    const pollingCpuPerMs = cpu / wall;
    let bytes = 0;
    let last: number | undefined;
    const end = Date.now() + opts.scrapeWindowMs;
    for (let i = 0; Date.now() < end; i++) {
      const r0 = performance.now();
      const c0 = process.cpuUsage();
      bytes = await streamedScrape(daemon.metricsView(), false); // as the server renders it
      renders.push(performance.now() - r0);
      const dc = process.cpuUsage(c0);
      renderCpus.push((dc.user + dc.system) / 1000);
      await sleep(opts.scrapeEveryMs / 2);
      // Gzip first, as Prometheus asks; plain every other scrape.
      const kind = i % 2 === 0 ? 'gzip' : 'plain';
      const sc0 = process.cpuUsage();
      const s = await scraper.scrape(daemon.url, kind === 'gzip');
      const sc = process.cpuUsage(sc0);
      scrapes[kind].push(s.ms);
      scrapeCpus[kind].push(Math.max(0, (sc.user + sc.system) / 1000 - pollingCpuPerMs * s.ms));
      last = s.overruns;
      await sleep(opts.scrapeEveryMs / 2);
    }
    const polls = p1.polls - p0.polls;
    return {
      polls,
      cpuPerPollMs: cpu / polls,
      sysShare: sysMs / cpu,
      coreShare: cpu / wall,
      connectsPerMin: (connects * 60_000) / wall,
      sockets,
      renderP50Ms: percentile(renders, 0.5),
      renderCpuP50Ms: percentile(renderCpus, 0.5),
      renderMaxMs: Math.max(...renders),
      scrapeP50Ms: percentile(scrapes.gzip, 0.5),
      scrapeMaxMs: Math.max(...scrapes.gzip),
      plainScrapeP50Ms: percentile(scrapes.plain, 0.5),
      plainScrapeMaxMs: Math.max(...scrapes.plain),
      gzipScrapeCpuP50Ms: percentile(scrapeCpus.gzip, 0.5),
      plainScrapeCpuP50Ms: percentile(scrapeCpus.plain, 0.5),
      bytes,
      steadyRss: rss.steady(),
      steadyMemory: rss.steadyFigures(),
      peakRss: rss.peak,
      lateP50Ms: late.p50Ms,
      lateP99Ms: late.p99Ms,
      lateMaxMs: late.maxMs,
      overruns: (last ?? overruns0) - overruns0,
      failedPolls: p1.failed - p0.failed,
    };
  } finally {
    scraper.stop();
    conns.stop();
    rss.stop();
    await daemon.close();
  }
}

/**
 * How long memory gets to settle before and after each batch of reloads (V8's memory reducer, freed memory returned).
 */
const RELOAD_SETTLE_MS = 30_000;

/**
 * Memory once what a full GC freed is given back: V8 returns freed pages on a helper thread after
 * the collection, so one reading right after gc() may still count them (5-13 MB at 1,000 nodes).
 * Collects until RSS moves by less than 1 MB between two readings (six rounds at most).
 */
async function memoryAfterGc(gc: () => void): Promise<MemoryFigures> {
  let last = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 6; round++) {
    gc();
    await sleep(500);
    const rss = process.memoryUsage.rss();
    if (Math.abs(rss - last) < 1024 * 1024) break;
    last = rss;
  }
  return process.memoryUsage();
}

/**
 * Memory of a fleet polled at `intervalMs` (a daemon at its working size) before and after each of
 * `batches` bursts of `count` config reloads (each a fresh config object), every figure 30 s after
 * the burst and once a full GC's freed memory was given back. Growth that each burst adds again is
 * what reloads keep; a change after the first burst only is V8 sizing its heap for the burst.
 */
export async function runReloads(
  nodes: FleetNode[],
  opts: { count: number; batches: number; intervalMs: number; evidenceDir: string },
): Promise<MemoryFigures[]> {
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
  const make = (i: number) =>
    simulatedFleetConfig(nodes, {
      listen: { host: '127.0.0.1', port: 0 },
      intervalMs: opts.intervalMs,
      timeoutMs: Math.min(5_000, opts.intervalMs - 1),
      evidenceDir: opts.evidenceDir,
      labels: () => ({ role: `r${i % 3}` }),
    });
  applyHeapPolicy(process.execArgv, nodes.length); // as the CLI does (the young generation fitted to the fleet)
  const logger = createLogger({ level: 'error' });
  const daemon = await startDaemon(make(0), { logger, components: standardComponents(logger) });
  try {
    // Every node polled once first (sockets open, answers kept): what grows after that is the reloads'.
    const readyBy = Date.now() + 90_000;
    while (!daemon.ready() && Date.now() < readyBy) await sleep(100);
    const WARM_RELOADS = 20;
    for (let i = 1; i <= WARM_RELOADS; i++) daemon.applyConfig(make(i));
    let reloads = WARM_RELOADS;
    await daemon.metricsView().render('text');
    await sleep(RELOAD_SETTLE_MS);
    const figures = [await memoryAfterGc(gc)];
    for (let b = 0; b < opts.batches; b++) {
      for (let i = 0; i < opts.count; i++) {
        daemon.applyConfig(make(++reloads));
        if (reloads % 50 === 0) await daemon.metricsView().render(reloads % 100 === 0 ? 'openmetrics' : 'text');
      }
      // A daemon reloads now and then, not 500 times a minute: what stays once the burst settled.
      await sleep(RELOAD_SETTLE_MS);
      figures.push(await memoryAfterGc(gc));
    }
    return figures;
  } finally {
    await daemon.close();
  }
}
