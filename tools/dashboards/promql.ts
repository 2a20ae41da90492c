// PromQL contract tooling: pull every PromQL expression out of the dashboards and the alert
// rules, parse it with the Prometheus project's own grammar (@prometheus-io/lezer-promql), and
// list the metric names it selects, so a test can hold them against what the exporter exposes.
import { parser } from '@prometheus-io/lezer-promql';
import { parse as parseYaml } from 'yaml';
import type { MetricFamily } from '../../src/domain.js';

export interface PromqlExpression {
  /** File the expression came from (as given by the caller). */
  file: string;
  /** Where in the file: panel/target or group/alert, for readable failures. */
  where: string;
  expr: string;
}

export interface PromqlAnalysis {
  /** Parse errors and selectors whose metric name cannot be checked; empty when all is well. */
  errors: string[];
  /** Metric names selected by the expression, sorted, without duplicates. */
  metricNames: string[];
}

/**
 * Grafana replaces its variables before the query reaches Prometheus; the grammar does not know
 * them. Interval variables become a duration (or seconds/milliseconds for their `_s`/`_ms`
 * forms), every other variable (`$network`, `${node}`, `${datasource}`, `${x:regex}`, `[[x]]`)
 * a plain word. A variable used where PromQL wants a number or a duration (other than the
 * interval ones) therefore fails to parse, which is the conservative outcome.
 */
export function substituteGrafanaVariables(expr: string): string {
  return expr
    .replace(/\$\{?__[a-z_]*_ms\}?/g, '300000')
    .replace(/\$\{?__[a-z_]*_s\}?/g, '300')
    .replace(/\$\{?__(?:rate_interval|interval|range|auto)\}?/g, '5m')
    .replace(/\$\{[A-Za-z0-9_]+(?::[A-Za-z0-9_]+)?\}|\$[A-Za-z_][A-Za-z0-9_]*|\[\[[A-Za-z0-9_]+\]\]/g, 'x');
}

function unquote(literal: string): string {
  // PromQL strings use Go escaping; JSON covers the double-quoted form, the rest is rare here.
  if (literal.startsWith('"')) return JSON.parse(literal) as string;
  return literal.slice(1, -1);
}

/** Parses one PromQL expression (Grafana variables already substituted). */
export function analyzePromql(expr: string): PromqlAnalysis {
  const errors: string[] = [];
  const names = new Set<string>();
  if (!expr.trim()) return { errors: ['empty expression'], metricNames: [] };
  const tree = parser.parse(expr);
  tree.iterate({
    enter(ref) {
      if (ref.type.isError) {
        errors.push(
          `syntax error at offset ${ref.from}: ` +
            `${JSON.stringify(expr.slice(Math.max(0, ref.from - 20), ref.from + 20))}`,
        );
        return;
      }
      if (ref.name !== 'VectorSelector') return;
      const node = ref.node;
      let named = false;
      const add = (name: string): void => {
        names.add(name);
        named = true;
      };
      const ident = node.getChild('Identifier');
      if (ident) add(expr.slice(ident.from, ident.to));
      const matchers = node.getChild('LabelMatchers');
      for (let m = matchers?.firstChild; m; m = m.nextSibling) {
        if (m.name === 'QuotedLabelName') {
          // UTF-8 selector form {"metric.name", ...}
          add(unquote(expr.slice(m.from, m.to)));
        } else if (m.name === 'UnquotedLabelMatcher' || m.name === 'QuotedLabelMatcher') {
          const label = m.getChild('LabelName') ?? m.getChild('QuotedLabelName');
          const labelText = label ? expr.slice(label.from, label.to) : '';
          if (labelText !== '__name__' && labelText !== '"__name__"') continue;
          const op = m.getChild('MatchOp');
          const value = m.getChild('StringLiteral');
          if (op?.firstChild?.name === 'EqlSingle' && value) add(unquote(expr.slice(value.from, value.to)));
          else {
            errors.push(`cannot check a metric name chosen by ${expr.slice(m.from, m.to)}`);
            named = true;
          }
        }
      }
      if (!named) errors.push(`selector without a metric name: ${expr.slice(node.from, node.to)}`);
    },
  });
  return { errors, metricNames: [...names].sort() };
}

// ---- Extraction ----

interface PanelLike {
  title?: string;
  type?: string;
  panels?: PanelLike[];
  targets?: Array<{ refId?: string; expr?: unknown }>;
}

/**
 * Grafana `label_values(selector, label)` and `query_result(expr)` variable queries hold PromQL
 * too; `label_values(label)` and other functions do not name a metric.
 */
function variableQueryExpr(query: unknown): string | undefined {
  const text =
    typeof query === 'string'
      ? query
      : typeof query === 'object' && query && 'query' in query
        ? String(query.query)
        : '';
  const lv = /^\s*label_values\(\s*(.+),\s*[A-Za-z_][A-Za-z0-9_]*\s*\)\s*$/s.exec(text);
  if (lv?.[1]) return lv[1];
  const qr = /^\s*query_result\(\s*(.+)\s*\)\s*$/s.exec(text);
  return qr?.[1];
}

/** Every PromQL expression of a Grafana dashboard JSON model (panels, rows, query variables). */
export function dashboardExpressions(model: unknown, file: string): PromqlExpression[] {
  const out: PromqlExpression[] = [];
  const d = model as {
    panels?: PanelLike[];
    templating?: { list?: Array<{ name?: string; type?: string; query?: unknown }> };
  };
  const walk = (panels: PanelLike[] | undefined): void => {
    for (const p of panels ?? []) {
      for (const t of p.targets ?? []) {
        if (typeof t.expr === 'string')
          out.push({ file, where: `panel "${p.title ?? '?'}" target ${t.refId ?? '?'}`, expr: t.expr });
      }
      walk(p.panels);
    }
  };
  walk(d.panels);
  for (const v of d.templating?.list ?? []) {
    if (v.type !== 'query') continue;
    const expr = variableQueryExpr(v.query);
    if (expr) out.push({ file, where: `variable "${v.name ?? '?'}"`, expr });
  }
  return out;
}

/** Every `expr` of a Prometheus rule file (alerting and recording rules). */
export function ruleExpressions(yamlText: string, file: string): PromqlExpression[] {
  const doc = parseYaml(yamlText) as {
    groups?: Array<{ name?: string; rules?: Array<{ alert?: string; record?: string; expr?: unknown }> }>;
  } | null;
  const out: PromqlExpression[] = [];
  for (const g of doc?.groups ?? []) {
    for (const r of g.rules ?? []) {
      if (r.expr === undefined || r.expr === null) continue;
      out.push({
        file,
        where: `group "${g.name ?? '?'}" ${r.alert ? `alert ${r.alert}` : `record ${r.record ?? '?'}`}`,
        expr: typeof r.expr === 'string' ? r.expr : JSON.stringify(r.expr),
      });
    }
  }
  return out;
}

/** Names of recording rules: expressions may select them although the exporter never exposes them. */
export function recordedNames(yamlText: string): string[] {
  const doc = parseYaml(yamlText) as { groups?: Array<{ rules?: Array<{ record?: string }> }> } | null;
  return (doc?.groups ?? []).flatMap((g) => (g.rules ?? []).flatMap((r) => (r.record ? [r.record] : [])));
}

// ---- What a scrape exposes ----

/**
 * Names a scrape offers to PromQL: the sample names (histograms as `_bucket`, `_sum`, `_count`)
 * and, separately, the families declared by `# TYPE` (which may hold no sample yet).
 */
export function exposedNames(families: readonly MetricFamily[]): {
  samples: Set<string>;
  declared: Map<string, string>;
} {
  const samples = new Set<string>();
  const declared = new Map<string, string>();
  for (const f of families) {
    declared.set(f.name, f.type);
    for (const s of f.samples) samples.add(s.name);
  }
  return { samples, declared };
}

/** Metric names Prometheus itself writes for every target or rule; no exporter exposes them. */
export const PROMETHEUS_GENERATED = new Set([
  'up',
  'scrape_duration_seconds',
  'scrape_samples_scraped',
  'scrape_samples_post_metric_relabeling',
  'scrape_series_added',
  'ALERTS',
  'ALERTS_FOR_STATE',
]);
