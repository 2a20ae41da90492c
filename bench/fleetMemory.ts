// Where a polling fleet's memory is: the exporter as the bench runs it (in this process, every node
// its own port), after a warm-up: process.memoryUsage() after a full GC, /proc/self/smaps summed by
// kind of mapping, and, with --snapshot, a V8 heap snapshot (bench/heapRetainers.ts attributes it).
// Usage: node --expose-gc dist-bench/bench/fleetMemory.js [--nodes 1000] [--interval 2s] [--warm 40]
//        [--snapshot file.heapsnapshot]   (through `flock /tmp/bench.lock`, MALLOC_MMAP_THRESHOLD_=131072)
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';
import { startPollingDaemon } from './pollingDaemon.js';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '1000' },
    interval: { type: 'string', default: '2s' },
    warm: { type: 'string', default: '40' },
    snapshot: { type: 'string' },
  },
});

const MB = 1024 * 1024;
const mb = (b: number) => (b / MB).toFixed(1);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Resident memory by kind of mapping: glibc's main heap, its thread arenas (64 MB reservations),
 * thread stacks (8 MB), other anonymous mappings (V8's heap pages, large mallocs, wasm memory) and files.
 */
function smapsByKind(): Record<string, number> {
  const out: Record<string, number> = {};
  let kind = '';
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const start = BigInt(`0x${head[1]!}`);
      const size = Number(BigInt(`0x${head[2]!}`) - start) / 1024;
      const path = head[4]!;
      if (path === '[heap]') kind = 'malloc main heap';
      else if (path.startsWith('/')) kind = 'files';
      else if (path.startsWith('[')) kind = path;
      else if (size === 8 * 1024 || size === 8 * 1024 - 4) kind = 'thread stacks (8 MB)';
      // glibc's thread arenas are 64 MB-aligned reservations (HEAP_MAX_SIZE), their used part read-write.
      else if (start % BigInt(64 * MB) === 0n && head[3]!.startsWith('rw')) kind = 'malloc thread arenas';
      else kind = 'anonymous, other (V8 heap, large mallocs)';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB$/.exec(line);
    if (rss) out[kind] = (out[kind] ?? 0) + Number(rss[1]) * 1024;
  }
  return out;
}

async function main(): Promise<void> {
  const count = Number(values.nodes);
  const intervalMs = Number(values.interval.replace(/s$/, '')) * 1000;
  const { daemon, close } = await startPollingDaemon(count, intervalMs, 'lfe-fleetmem-');
  try {
    await sleep(Number(values.warm) * 1000);
    for (let i = 0; i < 3; i++) (await daemon.metricsView().render('text')).release();
    const before = process.memoryUsage();
    globalThis.gc?.();
    await sleep(1000);
    const m = process.memoryUsage();
    console.log(
      `${count} nodes at ${values.interval}: RSS ${mb(before.rss)} MB (after a full GC ${mb(m.rss)}), heap used ` +
        `${mb(before.heapUsed)} -> ${mb(m.heapUsed)} MB of ${mb(m.heapTotal)} committed, external ${mb(m.external)} ` +
        `MB (array buffers ${mb(m.arrayBuffers)})`,
    );
    for (const sp of getHeapSpaceStatistics())
      if (sp.space_size >= MB / 2)
        console.log(`  V8 ${sp.space_name}: ${mb(sp.space_used_size)} MB used of ${mb(sp.space_size)} MB`);
    for (const [k, v] of Object.entries(smapsByKind()).sort((a, b) => b[1] - a[1]))
      if (v >= MB / 2) console.log(`  ${k}: ${mb(v)} MB`);
    if (values.snapshot) console.log(`snapshot: ${writeHeapSnapshot(values.snapshot)}`);
  } finally {
    await close();
  }
}

await main();
