// Types of the built-in alerting: definitions (one source for the engine and the rules file),
// the inputs the engine evaluates, and the alert instances it keeps.
import type { FleetSnapshot } from '../../state/snapshot.js';
import type { DurableRangeFn } from './memory.js';

export type { DurableRangeFn };

export const SEVERITIES = ['critical', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

export type Labels = Readonly<Record<string, string>>;

/** What the exporter knows about itself, beside the fleet snapshot. */
export interface ExporterSignals {
  /** undefined: no agent platform configured, or not checked yet. */
  agentKeyValid?: boolean;
  /** Counter: poll rounds started late, per probe. */
  pollOverruns: ReadonlyMap<string, number>;
  /** Counter: failed evidence writes. */
  evidenceWriteErrors: number;
  /** Counters per receiver: notifications delivered and failed (ledger_alert_notifications_total). */
  notifications?: ReadonlyMap<string, { success: number; failure: number }>;
}

/** The tunable part of a definition; config overrides replace these per alert. */
export interface AlertParams {
  severity: Severity;
  forMs: number;
  keepFiringForMs: number;
  /** The alert's one threshold; undefined for alerts without one. */
  threshold?: number;
}

/**
 * A range query over values the engine recorded at earlier evaluations (Prometheus range
 * vectors, kept in memory): records `value` at now, returns the values within `windowMs`.
 */
export type RangeFn = (key: string, value: number | undefined, windowMs: number) => readonly number[];

export interface EvalContext {
  snapshot: FleetSnapshot;
  exporter: ExporterSignals;
  params: AlertParams;
  range: RangeFn;
  /** How long the range `key` has been recorded, in ms; absent: as if for ever. */
  rangeAge?: (key: string) => number;
  /** Range vectors kept across restarts (alerting.stateDir); absent: the alert decides nothing needing them. */
  durable?: DurableRangeFn;
  /** The evaluation's time, ms since the epoch (what PromQL's time() is). */
  now: number;
}

/** One element of an alert's result vector: its labels (without alertname/severity) and value. */
export interface AlertSample {
  labels: Record<string, string>;
  value: number;
  /** The condition is not known (no data): an instance with these labels stays as it is. */
  hold?: boolean;
  /**
   * With hold: every instance whose labels include these stays as it is (an entry with one instance
   * per part, e.g. per delegation, whose parts are not known now).
   */
  holdMatching?: boolean;
  /** Values of other metrics for these labels, by metric name, that the annotations look up (template.ts). */
  refs?: Readonly<Record<string, number>>;
}

/** watch: per watched validator, miner or account (every shard evaluates its own entries). */
export type AlertScope = 'node' | 'network' | 'exporter' | 'watch';

export interface AlertDefinition {
  name: string;
  /** Rule group in the generated rules file. */
  group: string;
  scope: AlertScope;
  defaults: AlertParams;
  /** Why the expression is what it is (a comment in the rules file). */
  comment?: string;
  /** PromQL over the exporter's metrics, for the given parameters. */
  promql: (p: AlertParams) => string;
  /** Go-template annotations as Prometheus renders them ($labels, $value). */
  summary: (p: AlertParams) => string;
  description: (p: AlertParams) => string;
  /** The same condition over the exporter's own state; undefined when only Prometheus can see it. */
  evaluate?: (ctx: EvalContext) => AlertSample[];
  /** Changes the receivers its routes pick (deliveryFilter.ts). */
  delivery?: AlertDelivery;
}

export interface AlertDelivery {
  /** Only receivers of these kinds (the Watchdog: alertmanager). */
  onlyKinds?: readonly string[];
  /** Never the receiver named by the alert's `receiver` label (a failing receiver cannot report itself). */
  exceptLabelledReceiver?: boolean;
}
