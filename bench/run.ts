// `npm run bench`: the exporter against a simulated fleet at the shape of real fleets (every node
// its own port, i.e. its own origin), beside a floor (the cheapest program doing the same requests
// and parsing). Without options: 1,000 nodes at 2 s and at 15 s, 10,000 nodes at 15 s, and a
// shared-port line at 1,000 nodes / 2 s, a 1-node daemon idle (bench/idle.ts), and issue 43's goals
// beside what was measured (bench/goals.ts). Each side runs in a fresh process of its own.
// Options: --nodes N --interval 15s --duration 60s (one scenario), --layout shared-port,
// --per-process N (simulator nodes per process), --concurrency N, --paced (adds the floor paced
// on the exporter's schedule, and as one burst per interval), --reloads N (RSS across config reloads), --soak --minutes
// N, --render N (the scrape path alone, N nodes, no fleet; profile it with BENCH_NODE_FLAGS=--cpu-prof), --hostile
// (bench/hostile.ts). Figures are printed, never asserted: machines are shared and noisy.
import './holdYoung.js'; // first: before the exporter's modules load
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runExporter, runReloads, type ExporterResult } from './exporterPhase.js';
import { endsWithBench } from './children.js';
import { startFleet, type FleetNode, type Layout } from './fleet.js';
import type { FloorResult } from './floor.js';
import { goalLines, goalsTable, type IdleFigures } from './goals.js';
import {
  exporterLine,
  floorLine,
  machineLine,
  machineState,
  pacedTable,
  TABLE_HEADER,
  tableRow,
  type ScenarioResult,
} from './report.js';
import { runRenderProfile, type RenderProfile } from './renderProfile.js';
import type { HostileRun } from './hostile.js';
import type { MemoryFigures } from './proc.js';

const me = fileURLToPath(import.meta.url);
/** The floor measures at least this long: a few seconds' figure moves with the machine's speed of that moment. */
const FLOOR_MIN_MS = 20_000;
const mb = (b: number) => (b / 1024 / 1024).toFixed(1);
/** Bursts of --reloads N config reloads: growth that each burst adds again is what reloads keep. */
const RELOAD_BATCHES = 3;
/** The reloaded daemon polls on the contract's example interval, so its heap is at its working size. */
const RELOAD_INTERVAL_MS = 15_000;

interface Scenario {
  nodes: number;
  intervalMs: number;
  layout: Layout;
}

/** Each figure at each step (before -> after -> ...): RSS, the V8 heap (used and committed) and memory outside it. */
function reloadFigures(...steps: MemoryFigures[]): string {
  const names: Array<[keyof MemoryFigures, string]> = [
    ['rss', 'RSS'],
    ['heapUsed', 'heap used'],
    ['heapTotal', 'heap committed'],
    ['external', 'external'],
    ['arrayBuffers', 'array buffers'],
  ];
  return names.map(([k, name]) => `${name} ${steps.map((m) => mb(m[k])).join(' -> ')} MB`).join(', ');
}

function parseDuration(raw: string, what: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(raw.trim());
  if (!m) throw new Error(`--${what}: expected a duration like 500ms, 15s or 2m, got ${raw}`);
  return Number(m[1]) * ({ ms: 1, s: 1000, m: 60_000 } as const)[(m[2] ?? 'ms') as 'ms' | 's' | 'm'];
}

const options = {
  nodes: { type: 'string' },
  interval: { type: 'string' },
  duration: { type: 'string' },
  layout: { type: 'string', default: 'port-per-node' },
  'per-process': { type: 'string', default: '2000' },
  concurrency: { type: 'string' },
  'in-flight': { type: 'string', default: '64' },
  paced: { type: 'boolean', default: false },
  reloads: { type: 'string' },
  soak: { type: 'boolean', default: false },
  render: { type: 'string' },
  hostile: { type: 'boolean', default: false },
  'hostile-phase': { type: 'boolean', default: false },
  minutes: { type: 'string', default: '10' },
  phase: { type: 'string' },
  fleet: { type: 'string' },
  dir: { type: 'string' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof options }>>['values'];

/** Runs one phase in a fresh process (no inherited heap) and returns the JSON it prints last. */
async function phase<T>(name: string, args: string[]): Promise<T> {
  const flags = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const child = endsWithBench(
    spawn(process.execPath, ['--expose-gc', ...flags, me, '--phase', name, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  let last = '';
  for await (const line of createInterface({ input: child.stdout })) last = line;
  const code = child.exitCode ?? (await new Promise<number | null>((r) => child.once('exit', r)));
  if (code !== 0) throw new Error(`bench phase ${name} exited with ${code}`);
  return JSON.parse(last) as T;
}

/** A hostile-bench exporter run in a fresh process; its last stdout line is the JSON result. */
async function hostilePhase(args: string[]): Promise<HostileRun> {
  const child = endsWithBench(
    spawn(process.execPath, ['--expose-gc', me, ...args], { stdio: ['ignore', 'pipe', 'inherit'] }),
  );
  let last = '';
  for await (const line of createInterface({ input: child.stdout })) last = line;
  const code = child.exitCode ?? (await new Promise<number | null>((r) => child.once('exit', r)));
  if (code !== 0) throw new Error(`hostile bench phase exited with ${code}`);
  return JSON.parse(last) as HostileRun;
}

/** bench/idle.js in a process of its own; its last stdout line is the JSON of its figures. */
async function idleDaemon(): Promise<IdleFigures> {
  const child = endsWithBench(
    spawn(process.execPath, [fileURLToPath(new URL('./idle.js', import.meta.url)), '--seconds', '10', '--warm', '15'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  let last = '';
  for await (const line of createInterface({ input: child.stdout })) {
    if (!line.startsWith('{')) console.log(line);
    last = line;
  }
  const code = child.exitCode ?? (await new Promise<number | null>((r) => child.once('exit', r)));
  if (code !== 0) throw new Error(`bench/idle.js exited with ${code}`);
  return JSON.parse(last) as IdleFigures;
}

function measureMs(v: Values, intervalMs: number): number {
  return v.duration ? parseDuration(v.duration, 'duration') : Math.max(30_000, 4 * intervalMs);
}

async function phaseMain(v: Values): Promise<void> {
  // The young generation is held at its initial size until the fleet's cap is set (holdYoung.ts).
  const nodes = v.fleet ? (JSON.parse(readFileSync(v.fleet, 'utf8')) as FleetNode[]) : [];
  const intervalMs = parseDuration(v.interval ?? '15s', 'interval');
  let out: unknown;
  // The floor's, the hostile bench's and the soak's modules (undici's whole index among them) are
  // imported where they run: the exporter phase holds the exporter's modules only, as the CLI does.
  if (v.phase === 'floor') {
    const { runFloor } = await import('./floor.js');
    out = await runFloor(nodes, {
      rounds: Math.max(2, Math.ceil(5_000 / nodes.length)),
      minMs: FLOOR_MIN_MS,
      inFlight: Number(v['in-flight']),
      pacing: { kind: 'back-to-back' },
    });
  } else if (v.phase === 'paced' || v.phase === 'burst') {
    const rounds = Math.max(2, Math.ceil(measureMs(v, intervalMs) / intervalMs));
    const { runFloor } = await import('./floor.js');
    out = await runFloor(nodes, {
      rounds,
      minMs: 0,
      inFlight: Number(v['in-flight']),
      pacing: { kind: v.phase === 'paced' ? 'slots' : 'burst', intervalMs },
    });
  } else if (v.phase === 'exporter') {
    const measure = measureMs(v, intervalMs);
    out = await runExporter(nodes, {
      intervalMs,
      measureMs: measure,
      scrapeWindowMs: Math.max(10_000, measure / 2),
      scrapeEveryMs: 5_000,
      concurrency: v.concurrency === undefined ? undefined : Number(v.concurrency),
      evidenceDir: join(v.dir!, 'evidence'),
    });
  } else if (v.phase === 'render') {
    out = await runRenderProfile(Number(v.render), v.dir!);
  } else if (v.phase === 'reloads') {
    out = await runReloads(nodes, {
      count: Number(v.reloads ?? 500),
      batches: RELOAD_BATCHES,
      intervalMs,
      evidenceDir: join(v.dir!, 'evidence'),
    });
  } else throw new Error(`unknown phase ${v.phase}`);
  console.log(JSON.stringify(out));
}

function scenarios(v: Values): Scenario[] {
  const layout = v.layout as Layout;
  if (layout !== 'port-per-node' && layout !== 'shared-port')
    throw new Error('--layout must be port-per-node or shared-port');
  if (v.nodes !== undefined || v.interval !== undefined) {
    return [{ nodes: Number(v.nodes ?? 1000), intervalMs: parseDuration(v.interval ?? '15s', 'interval'), layout }];
  }
  return [
    { nodes: 1000, intervalMs: 2_000, layout: 'port-per-node' },
    { nodes: 1000, intervalMs: 15_000, layout: 'port-per-node' },
    { nodes: 10_000, intervalMs: 15_000, layout: 'port-per-node' },
    { nodes: 1000, intervalMs: 2_000, layout: 'shared-port' },
  ];
}

async function main(): Promise<void> {
  const { values: v } = parseArgs({ options, strict: true });
  if (v.phase) return phaseMain(v);
  if (v['hostile-phase']) {
    const { runHostilePhase } = await import('./hostile.js');
    const nodes = JSON.parse(readFileSync(v.fleet!, 'utf8')) as Parameters<typeof runHostilePhase>[0];
    return console.log(
      JSON.stringify(
        await runHostilePhase(
          nodes,
          parseDuration(v.interval!, 'interval'),
          parseDuration(v.duration!, 'duration'),
          v.dir!,
        ),
      ),
    );
  }
  if (v.hostile) {
    console.log(machineLine());
    console.log(
      'Other programs sharing the machine inflate CPU and latency figures; compare runs made under the same load.',
    );
    const intervalMs = parseDuration(v.interval ?? '2s', 'interval');
    const { runHostileBench } = await import('./hostile.js');
    return runHostileBench(
      {
        nodes: Number(v.nodes ?? 200),
        intervalMs,
        measureMs: v.duration ? parseDuration(v.duration, 'duration') : 30_000,
      },
      (args) => hostilePhase(args),
    );
  }
  console.log(machineLine());
  console.log(
    'Other programs sharing the machine inflate CPU and latency figures; compare runs made under the same load.',
  );
  console.log(await machineState());
  const dir = mkdtempSync(join(tmpdir(), 'lfe-bench-'));
  const perProcess = Number(v['per-process']);
  try {
    if (v.render) {
      const r = await phase<RenderProfile>('render', ['--render', v.render, '--dir', dir]);
      console.log(
        `render of ${v.render} nodes (${mb(r.bytes)} MB): CPU ${r.dirtyP50Ms.toFixed(1)} ms when every node ` +
          `changed, ${r.cleanP50Ms.toFixed(1)} ms when none did (medians)`,
      );
      console.log(
        `gzip scrape (render and compression, every node polled since the scrape before): CPU ` +
          `${r.gzipP50Ms.toFixed(1)} ms, ${(r.reusedShare * 100).toFixed(0)}% of the body's compression reused ` +
          `(medians)`,
      );
      console.log(
        `streamed (as /metrics is sent, read at once): CPU ${r.streamed.dirtyP50Ms.toFixed(1)} ms when every node ` +
          `changed, ${r.streamed.cleanP50Ms.toFixed(1)} ms when none did, gzip scrape ` +
          `${r.streamed.gzipP50Ms.toFixed(1)} ms (medians); after them ` +
          `${(r.streamedExternalPerNodeBytes / 1024).toFixed(1)} KB external per node; ${r.streamed.keptChunks} ` +
          `chunks kept, ${r.streamed.freshChunks} taken fresh in 24 scrapes; the old generation grew by ` +
          `${mb(r.streamed.oldGrowthP50Bytes)} MB per streamed scrape (median)`,
      );
      console.log(
        `applying one node's five results (parsing excluded): CPU ${(r.applyPerNodeMs * 1000).toFixed(0)} us per ` +
          `node (median)`,
      );
      console.log(
        `live after a full GC: heap ${mb(r.heapUsedBytes)} MB; per node ` +
          `${(r.heapPerNodeBytes / 1024).toFixed(1)} KB of heap + ${(r.externalPerNodeBytes / 1024).toFixed(1)} KB ` +
          `external`,
      );
      return;
    }
    if (v.soak) {
      const fleet = await startFleet(Number(v.nodes ?? 1000), {
        layout: v.layout as Layout,
        perProcess,
        control: true,
      });
      try {
        const { runSoak } = await import('./soak.js');
        await runSoak(fleet.nodes, Number(v.minutes), parseDuration(v.interval ?? '15s', 'interval'), dir);
      } finally {
        await fleet.close();
      }
      return;
    }
    // The whole bench also measures a 1-node daemon idle, the CLI as an operator starts it.
    const idle = v.nodes === undefined && v.interval === undefined ? await idleDaemon() : undefined;
    const rows: ScenarioResult[] = [];
    let fleet: Awaited<ReturnType<typeof startFleet>> | undefined;
    let fleetKey = '';
    for (const s of scenarios(v)) {
      const key = `${s.nodes}/${s.layout}`;
      if (key !== fleetKey) {
        await fleet?.close();
        fleet = await startFleet(s.nodes, { layout: s.layout, perProcess });
        fleetKey = key;
        writeFileSync(join(dir, 'fleet.json'), JSON.stringify(fleet.nodes));
        console.log(`simulator: ${s.nodes} nodes, ${s.layout}, in ${fleet.processes.length} process(es)`);
        if (v.reloads !== undefined || (v.nodes === undefined && rows.length === 0)) {
          const count = v.reloads ?? '500';
          const r = await phase<MemoryFigures[]>('reloads', [
            '--fleet',
            join(dir, 'fleet.json'),
            '--dir',
            dir,
            '--reloads',
            count,
            '--interval',
            `${RELOAD_INTERVAL_MS}ms`,
          ]);
          console.log(
            `  config reloads (${s.nodes} nodes polled every ${RELOAD_INTERVAL_MS / 1000} s), ${RELOAD_BATCHES} ` +
              `bursts of ${count}, each figure 30 s after the burst, after a full GC once freed memory was given ` +
              `back, before -> after each burst: ${reloadFigures(...r)}`,
          );
        }
      }
      const label = `${s.nodes.toLocaleString('en-US')} nodes${s.layout === 'shared-port' ? ', shared port' : ''}`;
      const common = [
        '--fleet',
        join(dir, 'fleet.json'),
        '--dir',
        dir,
        '--interval',
        `${s.intervalMs}ms`,
        '--in-flight',
        v['in-flight'],
      ];
      if (v.duration) common.push('--duration', v.duration);
      if (v.concurrency) common.push('--concurrency', v.concurrency);
      // The floor runs before and after the exporter, and the ratio uses both: the machine's
      // speed drifts over the minutes the exporter runs.
      const floorBefore = await phase<FloorResult>('floor', common);
      console.log(floorLine(label, floorBefore, `floor before (back to back, ${v['in-flight']} in flight)`));
      const paced = v.paced ? await phase<FloorResult>('paced', common) : undefined;
      if (paced) console.log(floorLine(label, paced, "paced loop (the floor on the exporter's schedule)"));
      const burst = v.paced ? await phase<FloorResult>('burst', common) : undefined;
      if (burst)
        console.log(floorLine(label, burst, 'burst loop (the floor, all nodes back to back once per interval)'));
      const exporter = await phase<ExporterResult>('exporter', common);
      console.log(exporterLine(label, exporter));
      const floorAfter = await phase<FloorResult>('floor', common);
      console.log(floorLine(label, floorAfter, 'floor after'));
      const floor = (await import('./floor.js')).bothFloors(floorBefore, floorAfter);
      rows.push({
        label,
        nodes: s.nodes,
        intervalMs: s.intervalMs,
        floor,
        ...(paced ? { paced } : {}),
        ...(burst ? { burst } : {}),
        exporter,
      });
    }
    await fleet?.close();
    console.log(`\n${TABLE_HEADER}\n${rows.map(tableRow).join('\n')}`);
    const pacedRows = pacedTable(rows);
    if (pacedRows) console.log(`\n${pacedRows}`);
    console.log(`\n${goalsTable(goalLines(rows, idle))}`);
    console.log(`\n${await machineState()} (at the end)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
