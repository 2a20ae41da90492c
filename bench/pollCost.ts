// What polling alone costs the exporter: the daemon as the bench runs it (every node its own port, no
// scrapes), warmed, then CPU per node-poll and the young generation's promotions per node-poll over a
// window. Run with --cpu-prof to see where the CPU goes.
// Usage: node --expose-gc dist-bench/bench/pollCost.js [--nodes 1000] [--interval 2s] [--warm 30] [--measure 30]
//        (through `flock /tmp/bench.lock`, MALLOC_MMAP_THRESHOLD_=131072)
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { getHeapSpaceStatistics } from 'node:v8';
import { startPollingDaemon } from './pollingDaemon.js';
import { cpuSplitFromProc } from './proc.js';
import type { Daemon } from '../src/daemon/index.js';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '1000' },
    interval: { type: 'string', default: '2s' },
    warm: { type: 'string', default: '30' },
    measure: { type: 'string', default: '30' },
    /** Writes a sampling heap profile of the window that keeps what survived a scavenge (promoted) to this file. */
    promoted: { type: 'string' },
  },
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function polls(d: Daemon): number {
  let n = 0;
  for (const node of d.state.nodes()) n += node.probes.get('health')?.runs ?? 0;
  return n;
}

/** Old-space bytes in use (old, code, large-object spaces): what promotions fill. */
function oldUsed(): number {
  let n = 0;
  for (const sp of getHeapSpaceStatistics()) if (sp.space_name !== 'new_space') n += sp.space_used_size;
  return n;
}

async function main(): Promise<void> {
  const count = Number(values.nodes);
  const intervalMs = Number(values.interval.replace(/s$/, '')) * 1000;
  const { daemon, close } = await startPollingDaemon(count, intervalMs, 'lfe-pollcost-');
  // Promotions: old space grows by what each scavenge promotes; a mark-compact shrinks it.
  let promoted = 0;
  let scavenges = 0;
  let fullGcs = 0;
  let fullGcMs = 0;
  let lastOld = oldUsed();
  let measuring = false;
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind;
      const now = oldUsed();
      if (measuring && kind === constants.NODE_PERFORMANCE_GC_MINOR) {
        promoted += Math.max(0, now - lastOld);
        scavenges++;
      } else if (measuring && kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
        fullGcs++;
        fullGcMs += e.duration;
      }
      lastOld = now;
    }
  });
  obs.observe({ entryTypes: ['gc'] });
  try {
    await sleep(Number(values.warm) * 1000);
    const p0 = polls(daemon);
    const c0 = cpuSplitFromProc();
    const t0 = performance.now();
    measuring = true;
    lastOld = oldUsed();
    const session = values.promoted === undefined ? undefined : new Session();
    if (session) {
      session.connect();
      // Samples of objects a scavenge collected are dropped; promoted ones are kept even once a full GC collects them.
      await session.post('HeapProfiler.startSampling', {
        samplingInterval: 1024,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: false,
      } as never);
    }
    await sleep(Number(values.measure) * 1000);
    measuring = false;
    if (session) {
      const { profile } = await session.post('HeapProfiler.stopSampling');
      writeFileSync(values.promoted!, JSON.stringify(profile));
      session.disconnect();
    }
    const c1 = cpuSplitFromProc();
    const wall = performance.now() - t0;
    const n = polls(daemon) - p0;
    const cpu = c1.userMs - c0.userMs + c1.sysMs - c0.sysMs;
    console.log(
      `${count} nodes at ${values.interval}: ${n} node-polls, CPU ${(cpu / n).toFixed(3)} ms per node-poll ` +
        `(${((100 * cpu) / wall).toFixed(1)}% of a core, sys ${((100 * (c1.sysMs - c0.sysMs)) / cpu).toFixed(0)}%); ` +
        `promoted ~${(promoted / n / 1024).toFixed(2)} KB per node-poll (${scavenges} scavenges), ` +
        `${fullGcs} full GCs (${fullGcMs.toFixed(0)} ms wall)`,
    );
  } finally {
    obs.disconnect();
    await close();
  }
}

await main();
