// Alerts about the exporter itself (rule group ledger-fleet-exporter). Prometheus labels them with
// the scraped `instance`; the built-in engine labels them with its own instance name.
import { durationWords, promDuration } from '../format.js';
import { counterIncrease } from '../range.js';
import type { AlertDefinition, AlertParams, AlertSample, ExporterSignals } from '../types.js';

const GROUP = 'ledger-fleet-exporter';

interface CounterRose {
  name: string;
  comment: string;
  defaults: AlertParams;
  /** The exporter's counter, as Prometheus scrapes it. */
  metric: string;
  windowMs: number;
  summary: string;
  description: (p: AlertParams) => string;
  /** The same counter as the engine reads it: one entry per label set, `key` names its range. */
  counters: (ex: ExporterSignals) => Array<{ key: string; labels: Record<string, string>; value: number }>;
}

/** An exporter counter that rose by more than the threshold within a window, in PromQL and in the engine alike. */
function counterRose(c: CounterRose): AlertDefinition {
  return {
    name: c.name,
    group: GROUP,
    scope: 'exporter',
    comment: c.comment,
    defaults: c.defaults,
    promql: (p) => `increase(${c.metric}[${promDuration(c.windowMs)}]) > ${p.threshold}`,
    summary: () => c.summary,
    description: c.description,
    evaluate: (ctx) => {
      const out: AlertSample[] = [];
      for (const { key, labels, value } of c.counters(ctx.exporter)) {
        const rose = counterIncrease(ctx.range(key, value, c.windowMs));
        if (rose > (ctx.params.threshold ?? 0)) out.push({ labels, value: rose });
      }
      return out;
    },
  };
}

export const EXPORTER_ALERTS: AlertDefinition[] = [
  {
    name: 'LedgerAgentKeyRejected',
    group: GROUP,
    scope: 'exporter',
    defaults: { severity: 'warning', forMs: 300_000, keepFiringForMs: 900_000 },
    promql: () => 'ledger_agent_platform_key_valid == 0',
    summary: () => "Agent platform rejects the exporter's API key",
    description: (p) =>
      `The agent platform has rejected the API key of exporter {{ $labels.instance }} for more than ` +
      `${durationWords(p.forMs)}.`,
    evaluate: (ctx) => (ctx.exporter.agentKeyValid === false ? [{ labels: {}, value: 0 }] : []),
  },
  counterRose({
    name: 'LedgerExporterPollOverrun',
    comment: 'A single late round is noise; overruns in every 5-minute window for 10 minutes are not.',
    defaults: { severity: 'warning', forMs: 600_000, keepFiringForMs: 900_000, threshold: 0 },
    metric: 'ledger_exporter_poll_overruns_total',
    windowMs: 300_000,
    summary: 'Exporter {{ $labels.instance }} cannot keep up with its {{ $labels.probe }} polls',
    description: (p) =>
      `Exporter {{ $labels.instance }} started {{ printf "%.0f" $value }} {{ $labels.probe }} poll rounds late ` +
      `in the last 5 minutes, and has kept overrunning for more than ${durationWords(p.forMs)}.`,
    counters: (ex) =>
      [...ex.pollOverruns].map(([probe, value]) => ({ key: `overruns\u0000${probe}`, labels: { probe }, value })),
  }),
  counterRose({
    name: 'LedgerExporterEvidenceWriteFailing',
    comment: "Every failed write is a lost record; `for` only skips a single evaluation's blip.",
    defaults: { severity: 'warning', forMs: 300_000, keepFiringForMs: 900_000, threshold: 0 },
    metric: 'ledger_evidence_write_errors_total',
    windowMs: 600_000,
    summary: 'Exporter {{ $labels.instance }} cannot write evidence',
    description: () =>
      'Exporter {{ $labels.instance }} failed {{ printf "%.0f" $value }} evidence writes in the last 10 minutes; ' +
      'records of node 5xx answers are being lost.',
    counters: (ex) => [{ key: 'evidence-errors', labels: {}, value: ex.evidenceWriteErrors }],
  }),
  {
    // The engine cannot see its own death: the heartbeat (dead-man's switch) covers it without Prometheus.
    name: 'LedgerExporterDown',
    group: GROUP,
    scope: 'exporter',
    comment: 'Seen from Prometheus: the target fails its scrape, or the job has no target at all.',
    defaults: { severity: 'critical', forMs: 120_000, keepFiringForMs: 300_000 },
    promql: () => 'up{job="ledger-fleet-exporter"} == 0 or absent(up{job="ledger-fleet-exporter"})',
    summary: () => 'ledger-fleet-exporter is down or not scraped',
    description: (p) =>
      `{{ if $labels.instance }}Prometheus has failed to scrape exporter {{ $labels.instance }}{{ else ` +
      `}}Prometheus has no target of job ledger-fleet-exporter{{ end }} for more than ${durationWords(p.forMs)}; ` +
      `every other ledger alert is blind meanwhile.`,
  },
];
