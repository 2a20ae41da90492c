// `npm run bench -- --hostile [--nodes N] [--interval 2s] [--duration 30s]`: the exporter against a
// clean fleet and against a fleet of the same size where every tenth node misbehaves (issue 15:
// churning 1 MB HELP, 200k series, 50k header-only families, cross-node name clashes, echoed
// secrets, 100k validators, 5xx with bodies). Prints RSS, heap, /metrics time and the lateness of
// the healthy nodes' polls for both. Each run is a fresh exporter process; figures are printed,
// never asserted: the machine is shared and noisy.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { startDaemon } from '../src/daemon/index.js';
import { simulatedFleetConfig } from '../src/demo/fleet.js';
import { headerCacheSize } from '../src/exposition/familyHeaders.js';
import { createLogger } from '../src/logger.js';
import { endsWithBench } from './children.js';
import type { BenchNode } from './hostileFleet.js';
import { percentile, RssSampler } from './proc.js';

const fleetScript = fileURLToPath(new URL('./hostileFleet.js', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (b: number) => (b / 1024 / 1024).toFixed(1);

export interface HostileRun {
  steadyRss: number;
  peakRss: number;
  heapAfterGc: number;
  scrapeP50Ms: number;
  scrapeMaxMs: number;
  bytes: number;
  healthyLateP50Ms: number;
  healthyLateP99Ms: number;
  healthyLateMaxMs: number;
  headerCacheChars: number;
}

async function startFleet(count: number, hostile: boolean): Promise<{ nodes: BenchNode[]; child: ChildProcess }> {
  const child = endsWithBench(
    spawn(process.execPath, [fleetScript, String(count), hostile ? '1' : '0'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  for await (const line of createInterface({ input: child.stdout }))
    return { nodes: JSON.parse(line) as BenchNode[], child };
  throw new Error('bench fleet exited before listing its nodes');
}

/** One exporter in this process against `nodes`; the caller runs it in a fresh process. */
export async function runHostilePhase(
  nodes: BenchNode[],
  intervalMs: number,
  measureMs: number,
  dir: string,
): Promise<HostileRun> {
  const rss = new RssSampler();
  const config = simulatedFleetConfig(nodes, {
    listen: { host: '127.0.0.1', port: 0 },
    intervalMs,
    timeoutMs: Math.min(5_000, intervalMs - 1),
    evidenceDir: join(dir, 'evidence'),
  });
  for (const t of config.nodes) t.headers = { 'x-api-key': { value: 'bench-api-key-0123' } };
  const healthy = new Set(nodes.filter((n) => n.kind === 'healthy').map((n) => n.name));
  const lastStart = new Map<string, number>();
  const late: number[] = [];
  let measuring = false;
  const daemon = await startDaemon(config, {
    logger: createLogger({ level: 'silent' }),
    components: [
      {
        name: 'bench-lateness',
        onProbeResult: (target, result) => {
          if (result.probe !== 'health' || !healthy.has(target.name)) return;
          const prev = lastStart.get(target.name);
          lastStart.set(target.name, result.startedAt);
          if (measuring && prev !== undefined) late.push(Math.max(0, result.startedAt - prev - intervalMs));
        },
      },
    ],
  });
  try {
    const readyBy = Date.now() + 3 * intervalMs + 60_000;
    while (!daemon.ready() && Date.now() < readyBy) await sleep(100);
    await sleep(intervalMs);
    rss.mark();
    measuring = true;
    const scrapes: number[] = [];
    let bytes = 0;
    const end = Date.now() + measureMs;
    while (Date.now() < end) {
      const t0 = performance.now();
      const res = await request(`${daemon.url}/metrics`);
      bytes = (await res.body.arrayBuffer()).byteLength;
      scrapes.push(performance.now() - t0);
      await sleep(2_000);
    }
    measuring = false;
    (globalThis as { gc?: () => void }).gc?.();
    return {
      steadyRss: rss.steady(),
      peakRss: rss.peak,
      heapAfterGc: process.memoryUsage().heapUsed,
      scrapeP50Ms: percentile(scrapes, 0.5),
      scrapeMaxMs: Math.max(...scrapes),
      bytes,
      healthyLateP50Ms: percentile(late, 0.5),
      healthyLateP99Ms: percentile(late, 0.99),
      healthyLateMaxMs: late.length ? Math.max(...late) : NaN,
      headerCacheChars: headerCacheSize().chars,
    };
  } finally {
    rss.stop();
    await daemon.close();
  }
}

/** Clean fleet, then hostile fleet, each with a fresh exporter process (`phase` runs one). */
export async function runHostileBench(
  opts: { nodes: number; intervalMs: number; measureMs: number },
  phase: (args: string[]) => Promise<HostileRun>,
): Promise<void> {
  console.log(
    `hostile bench: ${opts.nodes} nodes at ${opts.intervalMs} ms, ${opts.measureMs / 1000} s measured; every ` +
      `tenth node misbehaves in the hostile fleet`,
  );
  const rows: Array<[string, HostileRun]> = [];
  for (const hostile of [false, true]) {
    const fleet = await startFleet(opts.nodes, hostile);
    const dir = mkdtempSync(join(tmpdir(), 'lfe-bench-hostile-'));
    try {
      const file = join(dir, 'fleet.json');
      writeFileSync(file, JSON.stringify(fleet.nodes));
      rows.push([
        hostile ? 'hostile' : 'clean',
        await phase([
          '--hostile-phase',
          '--fleet',
          file,
          '--dir',
          dir,
          '--interval',
          `${opts.intervalMs}ms`,
          '--duration',
          `${opts.measureMs}ms`,
        ]),
      ]);
    } finally {
      fleet.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log(
    'fleet    RSS steady/peak MB  heap after GC MB  /metrics p50/max ms  bytes      healthy-poll lateness ' +
      'p50/p99/max ms  header cache chars',
  );
  for (const [label, r] of rows) {
    console.log(
      `${label.padEnd(8)} ${`${mb(r.steadyRss)}/${mb(r.peakRss)}`.padEnd(19)} ${mb(r.heapAfterGc).padEnd(17)} ` +
        `${`${r.scrapeP50Ms.toFixed(1)}/${r.scrapeMaxMs.toFixed(1)}`.padEnd(20)} ${String(r.bytes).padEnd(10)} ` +
        `${[r.healthyLateP50Ms, r.healthyLateP99Ms, r.healthyLateMaxMs]
          .map((ms) => ms.toFixed(0))
          .join('/')
          .padEnd(37)} ` +
        `${r.headerCacheChars}`,
    );
  }
}
