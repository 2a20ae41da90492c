// Issue 43's goals beside what this run measured: one table at the end of `npm run bench`, so a
// run says by itself which goals hold on the machine it ran on. A goal whose scenario did not run
// is listed as not measured, never as met.
import type { ScenarioResult } from './report.js';

/** What bench/idle.js prints last: a 1-node daemon run by the CLI, measured from outside. */
export interface IdleFigures {
  rssMb: number;
  rssAnonMb: number;
  rssFileMb: number;
  wakeupsPerSecond: number;
  cpuMsPerSecond: number;
}

export interface GoalLine {
  goal: string;
  measured: string;
  /** undefined: the run did not measure it. */
  met: boolean | undefined;
}

const MB = 1024 * 1024;
const mb = (b: number) => `${(b / MB).toFixed(0)} MB`;
const ms = (x: number) => (Number.isFinite(x) ? `${x.toFixed(0)} ms` : 'n/a');
const pct = (x: number) => `${(x * 100).toFixed(0)}%`;

/** Prometheus's usual scrape of one target per interval: what polling and one gzip scrape per interval cost. */
function shareWithScrape(r: ScenarioResult): number {
  const e = r.exporter;
  return e.coreShare + (Number.isFinite(e.gzipScrapeCpuP50Ms) ? e.gzipScrapeCpuP50Ms / r.intervalMs : 0);
}

function find(rows: readonly ScenarioResult[], nodes: number, intervalMs: number): ScenarioResult | undefined {
  return rows.find((r) => r.nodes === nodes && r.intervalMs === intervalMs && !r.label.includes('shared'));
}

export function goalLines(rows: readonly ScenarioResult[], idle: IdleFigures | undefined): GoalLine[] {
  const lines: GoalLine[] = [];
  lines.push({
    goal: '1 node: RSS under 65 MB',
    measured: idle
      ? `${idle.rssMb.toFixed(1)} MB (anonymous ${idle.rssAnonMb.toFixed(1)}, file-backed ` +
        `${idle.rssFileMb.toFixed(1)}); ${idle.wakeupsPerSecond.toFixed(1)} wake-ups/s, ` +
        `${idle.cpuMsPerSecond.toFixed(1)} ms CPU/s`
      : 'not measured',
    met: idle ? idle.rssMb < 65 : undefined,
  });
  const k = find(rows, 1000, 2000);
  lines.push({
    goal: '1,000 nodes at 2 s: RSS under 125 MB (steady)',
    measured: k ? `${mb(k.exporter.steadyRss)} steady, ${mb(k.exporter.peakRss)} peak` : 'not measured',
    met: k ? k.exporter.steadyRss < 125 * MB : undefined,
  });
  const t = find(rows, 10_000, 15_000);
  lines.push({
    goal: '10,000 nodes at 15 s: under 30% of a core',
    measured: t
      ? `${pct(t.exporter.coreShare)} polling; ${pct(shareWithScrape(t))} with one gzip scrape per interval`
      : 'not measured',
    met: t ? shareWithScrape(t) < 0.3 : undefined,
  });
  lines.push({
    goal: '10,000 nodes at 15 s: /metrics median under 250 ms',
    measured: t
      ? `whole scrape p50: gzip ${ms(t.exporter.scrapeP50Ms)}, plain ${ms(t.exporter.plainScrapeP50Ms)}`
      : 'not measured',
    met: t ? Math.max(t.exporter.scrapeP50Ms, t.exporter.plainScrapeP50Ms) < 250 : undefined,
  });
  lines.push({
    goal: '10,000 nodes at 15 s: RSS under 400 MB (steady)',
    measured: t ? `${mb(t.exporter.steadyRss)} steady, ${mb(t.exporter.peakRss)} peak` : 'not measured',
    met: t ? t.exporter.steadyRss < 400 * MB : undefined,
  });
  for (const r of rows) {
    if (!r.floor) continue;
    const ratio = r.exporter.cpuPerPollMs / r.floor.cpuPerPollMs;
    const paced = r.paced ? r.exporter.cpuPerPollMs / r.paced.cpuPerPollMs : undefined;
    lines.push({
      goal: `${r.label} at ${r.intervalMs / 1000} s: CPU per node-poll within 1.2x of the floor`,
      measured:
        `${ratio.toFixed(2)}x the back-to-back floor` +
        (paced === undefined ? '' : `, ${paced.toFixed(2)}x the floor paced on the exporter's schedule`),
      met: ratio <= 1.2,
    });
  }
  return lines;
}

export function goalsTable(lines: readonly GoalLine[]): string {
  const word = (m: boolean | undefined) => (m === undefined ? 'not measured' : m ? 'met' : 'NOT met');
  return [
    "| issue 43's goal | measured | |",
    '|---|---|---|',
    ...lines.map((l) => `| ${l.goal} | ${l.measured} | ${word(l.met)} |`),
  ].join('\n');
}
