// Shared building blocks for the dashboards. Every panel goes through these helpers so that the
// rules users rely on hold everywhere: the `${datasource}` variable on panels and targets
// (provisioned dashboards do not substitute `__inputs`), explicit refIds, a unit and a description.
import * as cog from '@grafana/grafana-foundation-sdk/cog';
import * as common from '@grafana/grafana-foundation-sdk/common';
import * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import * as prometheus from '@grafana/grafana-foundation-sdk/prometheus';
import * as stat from '@grafana/grafana-foundation-sdk/stat';
import * as statetimeline from '@grafana/grafana-foundation-sdk/statetimeline';
import * as table from '@grafana/grafana-foundation-sdk/table';
import * as timeseries from '@grafana/grafana-foundation-sdk/timeseries';

/** Tag shared by every dashboard of the project; the dashboard links menu lists them by it. */
export const PROJECT_TAG = 'ledger-fleet-exporter';

/** The datasource as seen by panels and targets: always the dashboard variable. */
export const DATASOURCE: { type: string; uid: string } = { type: 'prometheus', uid: '${datasource}' };

/** Label matchers for the network and node variables (both multi-value, hence `=~`). */
export const NET = 'network=~"$network"';
export const NET_NODE = 'network=~"$network", node=~"$node"';

/**
 * One series per node (and per each label in `keep`) however many replicas expose it: HA twins of
 * a shard both poll a node, and their scrape-target labels differ, so raw per-node series double.
 */
export function perNode(expr: string, keep: readonly string[] = []): string {
  return `max by (${['network', 'node', ...keep].join(', ')}) (${expr})`;
}

/** Labels a scrape target adds (static configs, prometheus-operator): what differs between twins. */
export const TARGET_LABELS = 'instance, job, pod, namespace, service, endpoint, container';

/** Guard that keeps process_* / nodejs_* series to our exporter's scrape targets only. */
export const EXPORTER_ONLY = 'and on (instance, job) ledger_exporter_build_info';

export interface Query {
  expr: string;
  legend?: string;
  /** Instant query (tables and single values of "now"). */
  instant?: boolean;
  /** Table format: one row per series, labels as columns. */
  table?: boolean;
}

export interface PanelSpec {
  title: string;
  description: string;
  /** Grafana unit id, e.g. `s`, `bytes`, `none`, `short`, `reqps`, `suffix: blocks`. */
  unit: string;
  queries: Query[];
  /** Grid width out of 24 and height in grid rows. */
  width?: number;
  height?: number;
  min?: number;
  max?: number;
  decimals?: number;
  mappings?: dashboard.ValueMapping[];
  /** Threshold steps as [from value, color]; the first step starts at -Infinity. */
  thresholds?: Array<[number | null, string]>;
}

const REF_IDS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

function targets(queries: Query[]): prometheus.DataqueryBuilder[] {
  if (queries.length === 0 || queries.length > REF_IDS.length)
    throw new Error(`a panel needs 1..${REF_IDS.length} queries`);
  return queries.map((q, i) => {
    const b = new prometheus.DataqueryBuilder()
      .refId(REF_IDS[i] as string)
      .datasource(DATASOURCE)
      .expr(q.expr)
      .legendFormat(q.legend ?? '__auto');
    if (q.instant) b.instant();
    else b.range();
    if (q.table) b.format(prometheus.PromQueryFormat.Table);
    return b;
  });
}

function thresholdsOf(steps: Array<[number | null, string]>): dashboard.ThresholdsConfigBuilder {
  return new dashboard.ThresholdsConfigBuilder()
    .mode(dashboard.ThresholdsMode.Absolute)
    .steps(steps.map(([value, color]) => ({ value, color })));
}

/** Settings every panel type shares; `P` is the SDK builder of one panel type. */
interface CommonPanelBuilder {
  title(t: string): unknown;
  description(d: string): unknown;
  unit(u: string): unknown;
  datasource(d: { type: string; uid: string }): unknown;
  targets(t: cog.Builder<cog.Dataquery>[]): unknown;
  span(w: number): unknown;
  height(h: number): unknown;
  min(n: number): unknown;
  max(n: number): unknown;
  decimals(n: number): unknown;
  mappings(m: dashboard.ValueMapping[]): unknown;
  thresholds(t: cog.Builder<dashboard.ThresholdsConfig>): unknown;
}

function apply<P extends CommonPanelBuilder>(b: P, spec: PanelSpec, defaultWidth: number, defaultHeight: number): P {
  if (!spec.description.trim()) throw new Error(`panel "${spec.title}" needs a description`);
  if (!spec.unit.trim()) throw new Error(`panel "${spec.title}" needs a unit`);
  b.title(spec.title);
  b.description(spec.description);
  b.unit(spec.unit);
  b.datasource(DATASOURCE);
  b.targets(targets(spec.queries));
  b.span(spec.width ?? defaultWidth);
  b.height(spec.height ?? defaultHeight);
  if (spec.min !== undefined) b.min(spec.min);
  if (spec.max !== undefined) b.max(spec.max);
  if (spec.decimals !== undefined) b.decimals(spec.decimals);
  if (spec.mappings) b.mappings(spec.mappings);
  if (spec.thresholds) b.thresholds(thresholdsOf(spec.thresholds));
  return b;
}

export function timeSeriesPanel(spec: PanelSpec): timeseries.PanelBuilder {
  return apply(new timeseries.PanelBuilder(), spec, 12, 8)
    .legend(
      new common.VizLegendOptionsBuilder()
        .showLegend(true)
        .displayMode(common.LegendDisplayMode.List)
        .placement(common.LegendPlacement.Bottom),
    )
    .tooltip(
      new common.VizTooltipOptionsBuilder().mode(common.TooltipDisplayMode.Multi).sort(common.SortOrder.Descending),
    )
    .fillOpacity(10)
    .spanNulls(false);
}

export function statPanel(spec: PanelSpec): stat.PanelBuilder {
  return apply(new stat.PanelBuilder(), spec, 4, 4)
    .reduceOptions(new common.ReduceDataOptionsBuilder().calcs(['lastNotNull']).values(false))
    .graphMode(common.BigValueGraphMode.None)
    .colorMode(common.BigValueColorMode.Value);
}

export function stateTimelinePanel(spec: PanelSpec): statetimeline.PanelBuilder {
  return apply(new statetimeline.PanelBuilder(), spec, 24, 8)
    .showValue(common.VisibilityMode.Never)
    .legend(
      new common.VizLegendOptionsBuilder()
        .showLegend(true)
        .displayMode(common.LegendDisplayMode.List)
        .placement(common.LegendPlacement.Bottom),
    );
}

/**
 * A table of instant queries in table format. `merge` joins the queries on their common labels
 * (one row per series); `hide` drops columns that only add noise (Time, __name__, job...).
 */
export function tablePanel(
  spec: PanelSpec & { hideColumns?: string[]; rename?: Record<string, string> },
): table.PanelBuilder {
  const b = apply(
    new table.PanelBuilder(),
    { ...spec, queries: spec.queries.map((q) => ({ ...q, instant: true, table: true })) },
    12,
    8,
  );
  if (spec.queries.length > 1) b.withTransformation({ id: 'merge', options: {} });
  const excludeByName: Record<string, boolean> = {};
  for (const c of ['Time', '__name__', 'job', 'instance', ...(spec.hideColumns ?? [])]) excludeByName[c] = true;
  b.withTransformation({ id: 'organize', options: { excludeByName, renameByName: spec.rename ?? {} } });
  return b;
}

export function row(title: string): dashboard.RowBuilder {
  return new dashboard.RowBuilder(title);
}

/** 0/1 gauges rendered as words and colours. */
export function boolMapping(zero: [string, string], one: [string, string]): dashboard.ValueMapping[] {
  return [
    {
      type: dashboard.MappingType.ValueToText,
      options: {
        '0': { text: zero[0], color: zero[1], index: 0 },
        '1': { text: one[0], color: one[1], index: 1 },
      },
    },
  ];
}

export interface DashboardSpec {
  uid: string;
  title: string;
  description: string;
  /** Node variable: multi-select with "All" (fleet views) or one node (the node detail). */
  nodeSelection: 'multi' | 'single';
}

/** A dashboard with the standard variables, time settings and links to its siblings. */
export function dashboardShell(spec: DashboardSpec): dashboard.DashboardBuilder {
  const single = spec.nodeSelection === 'single';
  return new dashboard.DashboardBuilder(spec.title)
    .uid(spec.uid)
    .description(spec.description)
    .tags([PROJECT_TAG])
    .editable()
    .refresh('30s')
    .time({ from: 'now-3h', to: 'now' })
    .timezone('browser')
    .tooltip(dashboard.DashboardCursorSync.Crosshair)
    .link(
      new dashboard.DashboardLinkBuilder('Ledger fleet dashboards')
        .type(dashboard.DashboardLinkType.Dashboards)
        .tags([PROJECT_TAG])
        .asDropdown(true)
        .includeVars(true)
        .keepTime(true),
    )
    .withVariable(
      new dashboard.DatasourceVariableBuilder('datasource')
        .label('Data source')
        .description('Prometheus that scrapes ledger-fleet-exporter.')
        .type('prometheus'),
    )
    .withVariable(
      new dashboard.QueryVariableBuilder('network')
        .label('Network')
        .description('Ledger networks (the `network` label of the exporter config).')
        .datasource(DATASOURCE)
        .query('label_values(ledger_node_up, network)')
        .definition('label_values(ledger_node_up, network)')
        .refresh(dashboard.VariableRefresh.OnTimeRangeChanged)
        .sort(dashboard.VariableSort.AlphabeticalAsc)
        .multi(true)
        .includeAll(true)
        .allValue('.*'),
    )
    .withVariable(
      new dashboard.QueryVariableBuilder('node')
        .label('Node')
        .description('Nodes of the selected networks (the `node` label, the configured node name).')
        .datasource(DATASOURCE)
        .query('label_values(ledger_node_up{network=~"$network"}, node)')
        .definition('label_values(ledger_node_up{network=~"$network"}, node)')
        .refresh(dashboard.VariableRefresh.OnTimeRangeChanged)
        .sort(dashboard.VariableSort.AlphabeticalAsc)
        .multi(!single)
        .includeAll(!single)
        .allValue('.*'),
    );
}

/** Builds the dashboard and numbers its panels (the SDK leaves ids unset; Grafana wants them unique). */
export function finish(b: dashboard.DashboardBuilder): dashboard.Dashboard {
  const d = b.build();
  let id = 1;
  for (const p of d.panels ?? []) {
    p.id = id++;
    if (p.type === 'row') for (const inner of (p as dashboard.RowPanel).panels ?? []) inner.id = id++;
  }
  return d;
}
