// The benchmark's printed figures: the machine it ran on and one table row per scenario.
import { cpus, loadavg, totalmem } from 'node:os';
import type { ExporterResult } from './exporterPhase.js';
import type { FloorResult } from './floor.js';
import { MALLOC_ENV, mallocPolicyGiven } from '../src/mallocPolicy.js';

export interface ScenarioResult {
  label: string;
  nodes: number;
  intervalMs: number;
  floor?: FloorResult;
  /** The floor paced on the exporter's schedule (--paced). */
  paced?: FloorResult;
  /** The floor as one burst per interval (--paced). */
  burst?: FloorResult;
  exporter: ExporterResult;
}

const mb = (b: number) => `${Math.round(b / 1024 / 1024)} MB`;
const ms = (x: number, digits = 2) => (Number.isFinite(x) ? `${x.toFixed(digits)} ms` : 'n/a');
const pct = (x: number) => (Number.isFinite(x) ? `${Math.round(x * 100)}%` : 'n/a');

export function machineLine(): string {
  const c = cpus();
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  return (
    `machine: ${c[0]?.model ?? 'unknown CPU'}, ${c.length} cores, ${mb(totalmem())} RAM, Node ${process.version}, ` +
    `load average at start ${load}, ${
      mallocPolicyGiven()
        ? `${Object.entries(MALLOC_ENV)
            .map(([k, v]) => `${k}=${v}`)
            .join(' ')} (as the image and systemd unit set it)`
        : 'glibc malloc as started (without MALLOC_ENV of src/mallocPolicy.ts, which the image sets: more RSS)'
    }`
  );
}

let _sink = 0;

/**
 * What the machine costs at this moment: a fixed compute loop, and the CPU of waking from a
 * timer. A shared virtual machine's speed drifts, its wake-ups most, and that moves every figure
 * of the bench: printed before and after the scenarios, so runs can be compared.
 */
export async function machineState(): Promise<string> {
  const t0 = performance.now();
  let x = 0;
  for (let i = 0; i < 100_000_000; i++) x = (x + i * 7) % 1_000_003;
  const loopMs = performance.now() - t0;
  _sink += x; // kept, so the loop is not optimised away
  const WAKES = 1_000;
  const c0 = process.cpuUsage();
  for (let i = 0; i < WAKES; i++) await new Promise((r) => setTimeout(r, 1));
  const c = process.cpuUsage(c0);
  return (
    `machine state: a fixed loop took ${loopMs.toFixed(0)} ms, a timer wake-up ` +
    `${((c.user + c.system) / WAKES).toFixed(0)} us of CPU`
  );
}

export const TABLE_HEADER = [
  '| fleet | interval | CPU per node-poll: exporter / floor | ratio | of which in the kernel: exporter / floor | ' +
    'share of one core | connects/min (steady) | sockets held | /metrics render p50 / max | whole scrape (gzip) ' +
    'p50 / max | whole scrape (plain) p50 / max | RSS steady / peak | lateness p50 / p99 / max | overruns | ' +
    'failed polls |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
].join('\n');

export function tableRow(r: ScenarioResult): string {
  const e = r.exporter;
  const ratio = r.floor ? (e.cpuPerPollMs / r.floor.cpuPerPollMs).toFixed(2) : 'n/a';
  return (
    `| ${r.label} | ${r.intervalMs / 1000} s | ${ms(e.cpuPerPollMs, 3)} / ` +
    `${r.floor ? ms(r.floor.cpuPerPollMs, 3) : 'n/a'} | ${ratio} | ${pct(e.sysShare)} / ` +
    `${r.floor ? pct(r.floor.sysShare) : 'n/a'} | ${(e.coreShare * 100).toFixed(0)}% | ` +
    `${Math.round(e.connectsPerMin)} | ${e.sockets} | ${ms(e.renderP50Ms, 1)} / ${ms(e.renderMaxMs, 1)} | ` +
    `${ms(e.scrapeP50Ms, 1)} / ${ms(e.scrapeMaxMs, 1)} | ${ms(e.plainScrapeP50Ms, 1)} / ` +
    `${ms(e.plainScrapeMaxMs, 1)} | ${mb(e.steadyRss)} / ${mb(e.peakRss)} | ` +
    `${ms(e.lateP50Ms, 0)} / ${ms(e.lateP99Ms, 0)} / ${ms(e.lateMaxMs, 0)} | ${e.overruns} | ${e.failedPolls} |`
  );
}

/**
 * With --paced: the exporter beside the floor on its own schedule and the floor as one burst per
 * interval. The back-to-back floor is the goal's; these split the gap into what pacing (and being
 * idle between polls at all) costs any program and what is the exporter's.
 */
export function pacedTable(rows: readonly ScenarioResult[]): string {
  const paced = rows.filter((r) => r.paced);
  if (paced.length === 0) return '';
  const toFloor = (f: FloorResult | undefined, r: ScenarioResult) =>
    f && r.floor ? (f.cpuPerPollMs / r.floor.cpuPerPollMs).toFixed(2) : 'n/a';
  const line = (r: ScenarioResult) =>
    `| ${r.label} | ${r.intervalMs / 1000} s | ${ms(r.exporter.cpuPerPollMs, 3)} | ` +
    `${ms(r.paced!.cpuPerPollMs, 3)} | ${(r.exporter.cpuPerPollMs / r.paced!.cpuPerPollMs).toFixed(2)} | ` +
    `${toFloor(r.paced, r)} | ${r.burst ? ms(r.burst.cpuPerPollMs, 3) : 'n/a'} | ${toFloor(r.burst, r)} |`;
  return [
    '| fleet | interval | CPU per node-poll: exporter | paced floor | exporter / paced floor | paced / ' +
      'back-to-back floor | burst floor (once per interval) | burst / back-to-back floor |',
    '|---|---|---|---|---|---|---|---|',
    ...paced.map(line),
  ].join('\n');
}

/** What the steady RSS is made of: V8 heap used / committed, and memory held outside it. */
function memoryParts(e: ExporterResult): string {
  const m = e.steadyMemory;
  return (
    `V8 heap ${mb(m.heapUsed)} used of ${mb(m.heapTotal)}, external ${mb(m.external)} incl. array buffers ` +
    `${mb(m.arrayBuffers)}`
  );
}

export function floorLine(label: string, f: FloorResult, what: string): string {
  return (
    `  ${label} ${what}: ${f.polls} node-polls in ${(f.wallMs / 1000).toFixed(1)} s, ${ms(f.cpuPerPollMs, 3)} CPU ` +
    `per node-poll (${pct(f.sysShare)} in the kernel), ${f.connectsDuringMeasure} connects while measured, ` +
    `${f.sockets} sockets, RSS ${mb(f.rss)}`
  );
}

export function exporterLine(label: string, e: ExporterResult): string {
  return (
    `  ${label} exporter: ${e.polls} node-polls, ${ms(e.cpuPerPollMs, 3)} CPU per node-poll (${pct(e.sysShare)} in ` +
    `the kernel; ${(e.coreShare * 100).toFixed(0)}% of one core), ${Math.round(e.connectsPerMin)} connects/min, ` +
    `${e.sockets} sockets, /metrics ${(e.bytes / 1024 / 1024).toFixed(1)} MB render p50 ${ms(e.renderP50Ms, 1)} ` +
    `(CPU ${ms(e.renderCpuP50Ms, 1)}), whole scrape p50 gzip ${ms(e.scrapeP50Ms, 1)} (CPU added ` +
    `${ms(e.gzipScrapeCpuP50Ms, 1)}) / plain ${ms(e.plainScrapeP50Ms, 1)} (CPU added ` +
    `${ms(e.plainScrapeCpuP50Ms, 1)}), RSS ${mb(e.steadyRss)} steady ` +
    `(${memoryParts(e)}) / ${mb(e.peakRss)} peak, lateness p99 ${ms(e.lateP99Ms, 0)}, ${e.overruns} overruns, ` +
    `${e.failedPolls} failed polls`
  );
}
