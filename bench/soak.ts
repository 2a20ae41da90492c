// `npm run bench -- --soak --minutes 10`: random faults on random nodes through the simulator's
// control API while the exporter polls; RSS, heap and evidence figures sampled over time.
import { join } from 'node:path';
import { request } from 'undici';
import { startDaemon } from '../src/daemon/index.js';
import { standardComponents } from '../src/daemon/features.js';
import { simulatedFleetConfig } from '../src/demo/fleet.js';
import { applyHeapPolicy } from '../src/heapPolicy.js';
import { createLogger } from '../src/logger.js';
import { SIM_FAULTS } from '../src/sim/index.js';
import type { FleetNode } from './fleet.js';

const mb = (b: number) => (b / 1024 / 1024).toFixed(1);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runSoak(nodes: FleetNode[], minutes: number, intervalMs: number, dir: string): Promise<void> {
  const config = simulatedFleetConfig(nodes, {
    listen: { host: '127.0.0.1', port: 0 },
    intervalMs,
    timeoutMs: Math.min(5_000, intervalMs - 1),
    evidenceDir: join(dir, 'evidence'),
    labels: () => ({ role: 'bench' }),
  });
  applyHeapPolicy(process.execArgv, nodes.length); // as the CLI does, so the figures are what operators get
  const logger = createLogger({ level: 'error' });
  const daemon = await startDaemon(config, { logger, components: standardComponents(logger) });
  const faults = SIM_FAULTS.filter((f) => f !== 'down');
  const end = Date.now() + minutes * 60_000;
  const sampleEvery = Math.min(30_000, (minutes * 60_000) / 10);
  let nextSample = Date.now();
  let changes = 0;
  // The live heap (after a full GC, --expose-gc) once warm and at the end: growth of what is kept,
  // apart from garbage not yet collected. RSS keeps the GC's own timing.
  const liveAt = Date.now() + Math.min(120_000, (minutes * 60_000) / 5);
  let liveFirst: string | undefined;
  console.log(`soak: ${nodes.length} nodes, interval ${intervalMs} ms, ${minutes} min`);
  console.log('soak: t(s)  rss(MB)  heap(MB)  evidence(MB)  records  dropped  writeErrors');
  const t0 = Date.now();
  try {
    while (Date.now() < end) {
      // Every second, a few nodes change fault (about 10% of the fleet faulty at any time).
      for (let k = 0; k < 5; k++) {
        const node = nodes[Math.floor(Math.random() * nodes.length)]!;
        const fault = Math.random() < 0.5 ? 'none' : faults[Math.floor(Math.random() * faults.length)]!;
        const res = await request(`${node.control}/nodes/${encodeURIComponent(node.simName)}/fault`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ fault }),
        });
        await res.body.dump();
        changes++;
      }
      if (liveFirst === undefined && Date.now() >= liveAt) liveFirst = liveHeap(t0);
      if (Date.now() >= nextSample) {
        nextSample += sampleEvery;
        // A scrape as Prometheus makes it (gzip), its memory released once compressed, as the server does.
        const scrape = await daemon.metricsView().render('text', { gzip: true });
        await scrape.gzipped;
        scrape.release();
        const st = daemon.evidence!.stats();
        const records = [...st.recordsByNode.values()].reduce((a, b) => a + b, 0);
        const m = process.memoryUsage();
        const t = String(Math.round((Date.now() - t0) / 1000)).padStart(5);
        console.log(
          `soak: ${t}  ${mb(m.rss).padStart(7)}  ${mb(m.heapUsed).padStart(8)}  ${mb(st.bytes).padStart(12)}  ` +
            `${String(records).padStart(7)}  ${String(st.dropped).padStart(7)}  ` +
            `${String(st.writeErrors).padStart(11)}`,
        );
      }
      await sleep(1000);
    }
    console.log(`soak: ${changes} fault changes over ${minutes} min`);
    if (liveFirst !== undefined) console.log(`soak: live heap after a full GC ${liveFirst} -> ${liveHeap(t0)}`);
  } finally {
    await daemon.close();
  }
}

function liveHeap(t0: number): string {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return `${mb(m.heapUsed)} MB (RSS ${mb(m.rss)} MB) at ${Math.round((Date.now() - t0) / 1000)} s`;
}
