// The bench's goal table judges each of issue 43's goals from the figures it is given: a goal
// whose scenario did not run is "not measured", and each kind of figure can fail its goal alone.
import { describe, expect, it } from 'vitest';
import type { ExporterResult } from '../../bench/exporterPhase.js';
import { goalLines, goalsTable, type IdleFigures } from '../../bench/goals.js';
import type { ScenarioResult } from '../../bench/report.js';
import type { FloorResult } from '../../bench/floor.js';

const MB = 1024 * 1024;

function exporter(over: Partial<ExporterResult>): ExporterResult {
  return {
    polls: 1000,
    cpuPerPollMs: 0.3,
    sysShare: 0.1,
    coreShare: 0.2,
    connectsPerMin: 0,
    sockets: 1001,
    renderP50Ms: 100,
    renderCpuP50Ms: 100,
    renderMaxMs: 150,
    scrapeP50Ms: 200,
    scrapeMaxMs: 240,
    plainScrapeP50Ms: 180,
    plainScrapeMaxMs: 220,
    gzipScrapeCpuP50Ms: 150,
    plainScrapeCpuP50Ms: 90,
    bytes: 50 * MB,
    steadyRss: 390 * MB,
    peakRss: 420 * MB,
    steadyMemory: { rss: 0, heapUsed: 0, heapTotal: 0, external: 0, arrayBuffers: 0 },
    lateP50Ms: 1,
    lateP99Ms: 2,
    lateMaxMs: 3,
    overruns: 0,
    failedPolls: 0,
    ...over,
  };
}

const floor = { cpuPerPollMs: 0.25 } as FloorResult;
const row = (nodes: number, intervalMs: number, e: Partial<ExporterResult>): ScenarioResult => ({
  label: `${nodes.toLocaleString('en-US')} nodes`,
  nodes,
  intervalMs,
  floor,
  exporter: exporter(e),
});
const idle: IdleFigures = { rssMb: 64.2, rssAnonMb: 21, rssFileMb: 43.2, wakeupsPerSecond: 2, cpuMsPerSecond: 1 };
const byGoal = (lines: ReturnType<typeof goalLines>, start: string) => lines.find((l) => l.goal.startsWith(start));

describe('bench goal table', () => {
  it('lists a goal whose scenario did not run as not measured, never as met', () => {
    const lines = goalLines([row(1000, 15_000, {})], undefined);
    expect(byGoal(lines, '1 node')?.met).toBeUndefined();
    expect(byGoal(lines, '1,000 nodes at 2 s')?.met).toBeUndefined();
    expect(byGoal(lines, '10,000 nodes at 15 s: RSS')?.met).toBeUndefined();
    expect(goalsTable(lines)).toContain('| not measured |');
  });

  it('judges the idle RSS, the 1,000-node steady RSS and the 10,000-node RSS against their bounds', () => {
    const lines = goalLines([row(1000, 2000, { steadyRss: 126 * MB }), row(10_000, 15_000, {})], idle);
    expect(byGoal(lines, '1 node')?.met).toBe(true);
    expect(byGoal(lines, '1,000 nodes at 2 s: RSS')?.met).toBe(false);
    expect(byGoal(lines, '10,000 nodes at 15 s: RSS')?.met).toBe(true);
  });

  it('fails the /metrics goal on a slow plain scrape even when the gzip scrape is fast', () => {
    const fast = goalLines([row(10_000, 15_000, {})], idle);
    const slowPlain = goalLines([row(10_000, 15_000, { plainScrapeP50Ms: 260 })], idle);
    expect(byGoal(fast, '10,000 nodes at 15 s: /metrics')?.met).toBe(true);
    expect(byGoal(slowPlain, '10,000 nodes at 15 s: /metrics')?.met).toBe(false);
  });

  it('counts one gzip scrape per interval into the share of a core', () => {
    // 20% polling + 1,650 ms of scrape CPU per 15 s interval = 31%.
    const lines = goalLines([row(10_000, 15_000, { coreShare: 0.2, gzipScrapeCpuP50Ms: 1650 })], idle);
    const share = byGoal(lines, '10,000 nodes at 15 s: under 30%');
    expect(share?.met).toBe(false);
    expect(share?.measured).toContain('31% with one gzip scrape per interval');
  });

  it('judges CPU per node-poll against the back-to-back floor of each scenario', () => {
    const lines = goalLines([row(1000, 2000, { cpuPerPollMs: 0.3 }), row(1000, 15_000, { cpuPerPollMs: 0.31 })], idle);
    const ratios = lines.filter((l) => l.goal.includes('within 1.2x'));
    expect(ratios.map((l) => l.met)).toEqual([true, false]);
    expect(ratios[1]?.measured).toContain('1.24x the back-to-back floor');
  });
});
