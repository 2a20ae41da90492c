// `npm run bench -- --render N`: the /metrics render of N nodes with every probe answered, in
// this process, without a fleet: whole render when every node changed since the last scrape
// (the 2 s interval case) and when none did. For profiling the scrape path (--cpu-prof).
import { getHeapSpaceStatistics } from 'node:v8';
import { startDaemon } from '../src/daemon/index.js';
import type { ProbeData, ProbeResult } from '../src/domain.js';
import type { ExporterConfig } from '../src/config/exporterConfig.js';
import { UpstreamReader } from '../src/exposition/index.js';
import { createLogger } from '../src/logger.js';
import type { MetricsView } from '../src/metrics/view.js';
import { percentile } from './proc.js';
import { streamedScrape } from './streamedScrape.js';

function nodeMetrics(i: number, height: number): string {
  return [
    '# HELP block_height Current block height',
    '# TYPE block_height gauge',
    `block_height ${height}`,
    '# HELP block_time_seconds Time between consecutive blocks in seconds',
    '# TYPE block_time_seconds histogram',
    ...[0.5, 1, 2, 3, 5, 10, 30, 60].map((le) => `block_time_seconds_bucket{le="${le}"} ${le >= 3 ? height : 0}`),
    `block_time_seconds_bucket{le="+Inf"} ${height}`,
    `block_time_seconds_sum ${height * 3}`,
    `block_time_seconds_count ${height}`,
    '# HELP blocks_total Total blocks processed',
    '# TYPE blocks_total counter',
    `blocks_total ${height}`,
    '# HELP mempool_size Transactions waiting in the mempool',
    '# TYPE mempool_size gauge',
    `mempool_size ${i % 17}`,
    '# HELP peers_connected Connected peers',
    '# TYPE peers_connected gauge',
    `peers_connected ${8 + (i % 5)}`,
    '# HELP transactions_total Total transactions processed',
    '# TYPE transactions_total counter',
    `transactions_total ${height * 7}`,
    '',
  ].join('\n');
}

/** CPU time (not wall time: the machine may be shared) since `from`, in ms. */
function cpuMsSince(from: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
}

/** What stays live after two full collections (needs --expose-gc; the bench's phases have it). */
function liveMemory(): { heapUsed: number; external: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  return { heapUsed: m.heapUsed, external: m.external };
}

export interface RenderProfile {
  dirtyP50Ms: number;
  cleanP50Ms: number;
  /** CPU of a whole gzip scrape (render and compression, every node changed since the one before). */
  gzipP50Ms: number;
  /** Share of that body whose compression an earlier scrape made. */
  reusedShare: number;
  bytes: number;
  applyPerNodeMs: number;
  /** Live heap and external memory per node after a full GC, beyond the daemon with no results. */
  heapPerNodeBytes: number;
  externalPerNodeBytes: number;
  /** Live heap after a full GC with every node filled. */
  heapUsedBytes: number;
  /** The same scrapes streamed (as the server sends /metrics), read by a reader that takes each chunk at once. */
  streamed: {
    dirtyP50Ms: number;
    cleanP50Ms: number;
    gzipP50Ms: number;
    /** Chunks taken beyond the pool in the 24 streamed scrapes (fresh memory), and the pool's size at the end. */
    freshChunks: number;
    keptChunks: number;
    /**
     * What the old generation grew by during a streamed scrape (objects a scavenge promoted, and
     * large objects), median over every kind of scrape: garbage there waits for a full collection.
     */
    oldGrowthP50Bytes: number;
  };
  /** External memory per node after a full GC after the streamed rounds (before any whole render kept a body). */
  streamedExternalPerNodeBytes: number;
}

export async function runRenderProfile(count: number, dir: string): Promise<RenderProfile> {
  const config: ExporterConfig = {
    listen: { host: '127.0.0.1', port: 0 },
    polling: { concurrency: 1, maxResponseBytes: 1 << 20, maxUpstreamSeries: 2000 },
    // Never polled within the run (one-hour interval): the state is filled below.
    nodes: Array.from({ length: count }, (_, i) => ({
      name: `node-${i}`,
      url: `http://127.0.0.1:1/n${i}`,
      network: i % 2 ? 'testnet' : 'mainnet',
      labels: { role: 'bench' },
      intervalMs: 3_600_000,
      timeoutMs: 5_000,
      rpcNamespace: 'claw' as const,
      probes: ['health', 'metrics', 'blockNumber', 'miningStats', 'validators'],
      headers: {},
    })),
    networks: {},
    evidence: { dir, maxBytes: 1 << 20, maxAgeDays: 1 },
  };
  const daemon = await startDaemon(config, { logger: createLogger({ level: 'error' }), evidence: false });
  const validators = Array.from({ length: 21 }, (_, k) => ({
    address: k.toString(16).padStart(64, '0'),
    stake: 10n ** 21n,
    weight: 1,
    agentScore: 50,
  }));
  // Each node's answers read as the prober reads them: after the first, by the node's last shape.
  const readers = Array.from({ length: count }, () => new UpstreamReader({}));
  /** CPU of applying the results (what polling pays, parsing excluded), per node-round. */
  const fillMs: number[] = [];
  const fill = (round: number) => {
    const now = Date.now();
    const rounds = Array.from({ length: count }, (_, i) => {
      const height = 100_000 + round + (i % 7);
      return [
        {
          probe: 'health',
          value: {
            status: 'ok',
            version: '0.5.8',
            chainId: 'claw-mainnet',
            height,
            peerCount: 8,
            epoch: 5,
            uptimeSecs: 1000 + round,
            lastBlockAgeSecs: 1,
            mempoolSize: 3,
          },
        },
        { probe: 'metrics', value: readers[i]!.read(nodeMetrics(i, height)) },
        { probe: 'blockNumber', value: height },
        {
          probe: 'miningStats',
          value: {
            totalMiners: 10,
            activeMiners: 7,
            currentBlockReward: 10n ** 9n,
            miningUpgradeHeight: 200_000,
            upgraded: false,
          },
        },
        { probe: 'validators', value: validators },
      ] as ProbeData[];
    });
    const c0 = process.cpuUsage();
    rounds.forEach((results, i) => {
      for (const data of results) {
        const r: ProbeResult = {
          kind: 'ok',
          probe: data.probe,
          startedAt: now,
          durationMs: 3 + (i % 5),
          data,
          namespace: 'claw',
        } as ProbeResult;
        daemon.state.apply(`node-${i}`, r);
        // As the daemon's probe-result path does: the view prepares the node's lines now.
        daemon.metricsView().noteResult(daemon.state.get(`node-${i}`)!);
      }
    });
    // What the view's batch timer does while results arrive: each changed node's lines, once.
    daemon.metricsView().buildChanged();
    fillMs.push(cpuMsSince(c0) / count);
  };
  try {
    const empty = liveMemory();
    const streamed = await streamedRounds(daemon.metricsView(), (round) => fill(100 + round));
    const afterStreamed = liveMemory();
    const dirty: number[] = [];
    const clean: number[] = [];
    const zipped: number[] = [];
    const reused: number[] = [];
    let bytes = 0;
    for (let round = 0; round < 8; round++) {
      fill(round);
      let c0 = process.cpuUsage();
      const rendered = await daemon.metricsView().render('text');
      bytes = rendered.body.length;
      rendered.release(); // as the server does once the body is compressed
      dirty.push(cpuMsSince(c0));
      c0 = process.cpuUsage();
      (await daemon.metricsView().render('text')).release();
      clean.push(cpuMsSince(c0));
      // A gzip scrape, as Prometheus asks for it: every node polled since the one before.
      c0 = process.cpuUsage();
      const gz = await daemon.metricsView().render('text', { gzip: true });
      await gz.gzipped;
      gz.release();
      zipped.push(cpuMsSince(c0)); // the thread pool's compression included (process CPU)
      // The body leaves the reused blocks out.
      reused.push((gz.reusedBytes ?? 0) / ((gz.reusedBytes ?? 0) + gz.body.length));
    }
    const full = liveMemory();
    return {
      dirtyP50Ms: percentile(dirty.slice(1), 0.5),
      cleanP50Ms: percentile(clean.slice(1), 0.5),
      // From the third gzip scrape on: what lines unchanged since the scrape before may reuse.
      gzipP50Ms: percentile(zipped.slice(2), 0.5),
      reusedShare: percentile(reused.slice(2), 0.5),
      bytes,
      applyPerNodeMs: percentile(fillMs.slice(1), 0.5),
      heapPerNodeBytes: (full.heapUsed - empty.heapUsed) / count,
      externalPerNodeBytes: (full.external - empty.external) / count,
      heapUsedBytes: full.heapUsed,
      streamed,
      streamedExternalPerNodeBytes: (afterStreamed.external - empty.external) / count,
    };
  } finally {
    await daemon.close(0);
  }
}

/** The old generation's bytes in use (old space and large objects). */
function oldGeneration(): number {
  let used = 0;
  for (const s of getHeapSpaceStatistics())
    if (s.space_name === 'old_space' || s.space_name === 'large_object_space') used += s.space_used_size;
  return used;
}

/** Eight rounds of fill, streamed plain scrape (every node changed), another (none did), streamed gzip scrape. */
async function streamedRounds(view: MetricsView, fill: (round: number) => void): Promise<RenderProfile['streamed']> {
  const dirty: number[] = [];
  const clean: number[] = [];
  const zipped: number[] = [];
  const grown: number[] = [];
  const scrape = async (gzip: boolean, into: number[], round: number) => {
    const old = oldGeneration();
    const c0 = process.cpuUsage();
    await streamedScrape(view, gzip);
    into.push(cpuMsSince(c0));
    if (round > 1) grown.push(oldGeneration() - old);
  };
  for (let round = 0; round < 8; round++) {
    fill(round);
    await scrape(false, dirty, round);
    await scrape(false, clean, round);
    await scrape(true, zipped, round);
  }
  return {
    dirtyP50Ms: percentile(dirty.slice(1), 0.5),
    cleanP50Ms: percentile(clean.slice(1), 0.5),
    gzipP50Ms: percentile(zipped.slice(2), 0.5),
    freshChunks: view.chunks.freshTaken,
    keptChunks: view.chunks.size,
    oldGrowthP50Bytes: percentile(grown, 0.5),
  };
}
