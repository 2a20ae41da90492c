// The built-in alert engine: evaluates the alert definitions over the FleetSnapshot that /metrics
// renders, and keeps one state machine per alert instance. Pure apart from the injected time.
import { alertDefinitions, annotationTemplates } from './definitions/index.js';
import { watchEntryGone } from './definitions/watchSupport.js';
import { watchKindNames } from '../../watch/kinds/registry.js';
import { fingerprint } from './labels.js';
import { observeActive, observeInactive, type AlertInstance } from './instance.js';
import { DurableRanges } from './memory.js';
import { RangeStore } from './range.js';
import { renderTemplate } from './template.js';
import { effectiveParams, type RuleOverride } from './params.js';
import type { AlertDefinition, AlertParams, AlertSample, DurableRangeFn, ExporterSignals, Labels } from './types.js';
import type { FleetSnapshot } from '../../state/snapshot.js';

export type { RuleOverride };

export interface EngineOptions {
  runbookBase: string;
  /** The `instance` label of the exporter's own alerts (Prometheus would use the scrape target). */
  instance: string;
  rules?: Readonly<Record<string, RuleOverride>>;
  definitions?: readonly AlertDefinition[];
  /** How long a resolved instance stays listed, so receivers can be told (Prometheus: 15 min). */
  resolvedRetentionMs?: number;
}

export interface EngineInputs {
  snapshot: FleetSnapshot;
  exporter: ExporterSignals;
}

interface ActiveRule {
  def: AlertDefinition;
  params: AlertParams;
  /** The annotations' templates, made once per configuration. */
  templates: Record<string, string>;
  /** A sample's labels (kept by definitions whose subject did not change) -> the instance's labels and id. */
  identities: WeakMap<Labels, { labels: Labels; id: string }>;
}

export const RESOLVED_RETENTION_MS = 15 * 60_000;

/** How old a saved pending instance may be and still keep its activeAt (see restore). */
export const PENDING_OUTAGE_TOLERANCE_MS = 3_600_000;

export class AlertEngine {
  private rules: ActiveRule[] = [];
  private readonly instances = new Map<string, AlertInstance>();
  private readonly ranges = new RangeStore();
  /** The look-back a restart must keep (notify/memoryStore.ts saves and loads it). */
  readonly durable = new DurableRanges();
  private readonly errors = new Map<string, string>();
  private opts!: EngineOptions;
  private byName = new Map<string, ActiveRule>();
  /** Which rule rendered an annotations object: the same rule, labels and value render the same text. */
  private readonly renderedBy = new WeakMap<Record<string, string>, ActiveRule>();

  constructor(opts: EngineOptions) {
    this.configure(opts);
  }

  /** Applies new options (a config reload); instances of disabled alerts resolve at the next evaluation. */
  configure(opts: EngineOptions): void {
    this.opts = opts;
    this.rules = (opts.definitions ?? alertDefinitions()).flatMap((def) => {
      const params = def.evaluate ? effectiveParams(def, opts.rules) : undefined;
      if (!params) return [];
      return [
        { def, params, templates: annotationTemplates(def, params, opts.runbookBase), identities: new WeakMap() },
      ];
    });
    this.byName = new Map(this.rules.map((r) => [r.def.name, r]));
  }

  /** Parameters in effect for an alert the engine evaluates (undefined when disabled or Prometheus-only). */
  params(name: string): AlertParams | undefined {
    return this.byName.get(name)?.params;
  }

  /**
   * Puts back instances saved before a restart (their activeAt and firingSince included).
   * `downMs`: time since the state was saved. A pending instance saved longer ago than
   * PENDING_OUTAGE_TOLERANCE_MS starts pending again: nobody watched the condition meanwhile, so
   * a restart hours later must not fire it at the first evaluation (Prometheus's
   * --rules.alert.for-outage-tolerance, same default).
   */
  restore(saved: Iterable<AlertInstance>, downMs = 0): void {
    for (const inst of saved) {
      if (inst.state === 'pending' && downMs > PENDING_OUTAGE_TOLERANCE_MS) continue;
      this.instances.set(inst.id, inst);
    }
  }

  evaluate(inputs: EngineInputs, now: number): void {
    const seen = new Set<string>();
    for (const rule of this.rules) {
      const { def, params } = rule;
      let samples;
      try {
        samples = def.evaluate!({
          snapshot: inputs.snapshot,
          exporter: inputs.exporter,
          params,
          now,
          range: (k, v, w) => this.ranges.read(`${def.name}\u0000${k}`, v, w, now),
          rangeAge: (k) => this.ranges.age(`${def.name}\u0000${k}`, now),
          durable: this.durableFor(def.name, now),
        });
        this.errors.delete(def.name);
      } catch (err) {
        // A broken expression keeps its instances as they are rather than resolving them.
        this.errors.set(def.name, err instanceof Error ? err.message : String(err));
        for (const inst of this.instances.values()) if (inst.alertname === def.name) seen.add(inst.id);
        continue;
      }
      for (const s of samples) {
        if (s.holdMatching) {
          this.holdMatching(def.name, s.labels, seen);
          continue;
        }
        const { labels, id } = this.identify(rule, s.labels);
        seen.add(id);
        if (s.hold) continue;
        const current = this.instances.get(id);
        let annotations = current?.annotations;
        if (!annotations || s.refs || current!.value !== s.value || this.renderedBy.get(annotations) !== rule) {
          annotations = renderAnnotations(rule.templates, labels, s.value, s.refs);
          this.renderedBy.set(annotations, rule);
        }
        this.instances.set(id, observeActive(current, id, { labels, annotations, value: s.value }, params, now));
      }
    }
    const nodes = new Set(inputs.snapshot.nodes.map((n) => n.name));
    const networks = new Set(inputs.snapshot.networks.map((n) => n.network));
    for (const [id, inst] of this.instances) {
      if (seen.has(id)) continue;
      const rule = this.byName.get(inst.alertname);
      // Gone: the alert was disabled, or its node or network was removed by a reload.
      const gone =
        !rule ||
        (inst.labels.node !== undefined && !nodes.has(inst.labels.node)) ||
        (inst.labels.network !== undefined && !networks.has(inst.labels.network)) ||
        watchEntryGone(inst.labels, inputs.snapshot.watch, watchKindNames());
      const next = observeInactive(inst, rule?.params ?? { forMs: 0, keepFiringForMs: 0 }, now, {
        gone,
        resolvedRetentionMs: this.opts.resolvedRetentionMs ?? RESOLVED_RETENTION_MS,
      });
      if (next) this.instances.set(id, next);
      else this.instances.delete(id);
    }
    this.ranges.sweep(now);
    this.durable.sweep(now);
  }

  /** Holds every instance of `alert` whose labels include `labels` (an entry whose parts are not known now). */
  private holdMatching(alert: string, labels: Labels, seen: Set<string>): void {
    const wanted = Object.entries(labels);
    for (const inst of this.instances.values())
      if (inst.alertname === alert && wanted.every(([k, v]) => inst.labels[k] === v)) seen.add(inst.id);
  }

  private durableFor(alert: string, now: number): DurableRangeFn {
    const p = `${alert}\u0000`;
    return {
      read: (k, v, w) => this.durable.read(p + k, v, w, now),
      keys: (group) => this.durable.keys(p + group).map((k) => k.slice(p.length)),
      forget: (k) => this.durable.forget(p + k),
    };
  }

  /** The instance's labels and id for a sample's labels, hashed once while the sample keeps them. */
  private identify(rule: ActiveRule, sampleLabels: Labels): { labels: Labels; id: string } {
    let known = rule.identities.get(sampleLabels);
    if (!known) {
      const scope: Labels = rule.def.scope === 'exporter' ? { instance: this.opts.instance } : {};
      const labels: Labels = { ...sampleLabels, ...scope, alertname: rule.def.name, severity: rule.params.severity };
      known = { labels, id: fingerprint(labels) };
      rule.identities.set(sampleLabels, known);
    }
    return known;
  }

  /** Pending, firing and recently resolved instances, oldest first. */
  list(): AlertInstance[] {
    return [...this.instances.values()].sort((a, b) => a.activeAt - b.activeAt || a.id.localeCompare(b.id));
  }

  /** Pending and firing instances. */
  active(): AlertInstance[] {
    return this.list().filter((i) => i.state !== 'resolved');
  }

  /** Alerts whose expression threw at the last evaluation, with the message. */
  evaluationErrors(): ReadonlyMap<string, string> {
    return this.errors;
  }
}

function renderAnnotations(
  templates: Record<string, string>,
  labels: Labels,
  value: number,
  refs: AlertSample['refs'],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, t] of Object.entries(templates)) out[k] = renderTemplate(t, labels, value, refs);
  return out;
}
