// Alerts about the exporter itself (rule group ledger-fleet-exporter). Prometheus labels them with
// the scraped `instance`; the built-in engine labels them with its own instance name.
import { durationWords } from '../format.js';
import { counterIncrease } from '../range.js';
import type { AlertDefinition } from '../types.js';

const GROUP = 'ledger-fleet-exporter';
const OVERRUN_WINDOW_MS = 300_000;
const EVIDENCE_WINDOW_MS = 600_000;

export const EXPORTER_ALERTS: AlertDefinition[] = [
  {
    name: 'LedgerAgentKeyRejected',
    group: GROUP,
    scope: 'exporter',
    defaults: { severity: 'warning', forMs: 300_000, keepFiringForMs: 900_000 },
    promql: () => 'ledger_agent_platform_key_valid == 0',
    summary: () => "Agent platform rejects the exporter's API key",
    description: (p) =>
      `The agent platform has rejected the API key of exporter {{ $labels.instance }} for more than ${durationWords(p.forMs)}.`,
    evaluate: (ctx) => (ctx.exporter.agentKeyValid === false ? [{ labels: {}, value: 0 }] : []),
  },
  {
    name: 'LedgerExporterPollOverrun',
    group: GROUP,
    scope: 'exporter',
    comment: 'A single late round is noise; overruns in every 5-minute window for 10 minutes are not.',
    defaults: { severity: 'warning', forMs: 600_000, keepFiringForMs: 900_000, threshold: 0 },
    promql: (p) => `increase(ledger_exporter_poll_overruns_total[5m]) > ${p.threshold}`,
    summary: () => 'Exporter {{ $labels.instance }} cannot keep up with its {{ $labels.probe }} polls',
    description: (p) =>
      `Exporter {{ $labels.instance }} started {{ printf "%.0f" $value }} {{ $labels.probe }} poll rounds late in the last 5 minutes, and has kept overrunning for more than ${durationWords(p.forMs)}.`,
    evaluate: (ctx) => {
      const out = [];
      for (const [probe, count] of ctx.exporter.pollOverruns) {
        const late = counterIncrease(ctx.range(`overruns\u0000${probe}`, count, OVERRUN_WINDOW_MS));
        if (late > (ctx.params.threshold ?? 0)) out.push({ labels: { probe }, value: late });
      }
      return out;
    },
  },
  {
    name: 'LedgerExporterEvidenceWriteFailing',
    group: GROUP,
    scope: 'exporter',
    comment: "Every failed write is a lost record; `for` only skips a single evaluation's blip.",
    defaults: { severity: 'warning', forMs: 300_000, keepFiringForMs: 900_000, threshold: 0 },
    promql: (p) => `increase(ledger_evidence_write_errors_total[10m]) > ${p.threshold}`,
    summary: () => 'Exporter {{ $labels.instance }} cannot write evidence',
    description: () =>
      'Exporter {{ $labels.instance }} failed {{ printf "%.0f" $value }} evidence writes in the last 10 minutes; records of node 5xx answers are being lost.',
    evaluate: (ctx) => {
      const failed = counterIncrease(ctx.range('evidence-errors', ctx.exporter.evidenceWriteErrors, EVIDENCE_WINDOW_MS));
      return failed > (ctx.params.threshold ?? 0) ? [{ labels: {}, value: failed }] : [];
    },
  },
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
      `{{ if $labels.instance }}Prometheus has failed to scrape exporter {{ $labels.instance }}{{ else }}Prometheus has no target of job ledger-fleet-exporter{{ end }} for more than ${durationWords(p.forMs)}; every other ledger alert is blind meanwhile.`,
  },
];

