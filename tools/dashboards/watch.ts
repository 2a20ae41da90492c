// The operator's own entries of the `watch:` section, each read through the fleet's nodes of its
// network (ledger_watch_* series; one per entry, however many replicas export it, hence max by).
// Every registered watch kind brings its own rows (WatchKindDef.panels, as data); the reading of
// every entry comes last.
import type * as cog from '@grafana/grafana-foundation-sdk/cog';
import type * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import { watchKinds } from '../../src/watch/kinds/registry.js';
import type { WatchPanel, WatchPanelQuery } from '../../src/watch/panels/types.js';
import {
  NET,
  boolMapping,
  dashboardShell,
  finish,
  row,
  stateTimelinePanel,
  statPanel,
  tablePanel,
  timeSeriesPanel,
  type PanelSpec,
  type Query,
} from './common.js';

export const WATCH_UID = 'ledger-watch';

function query(kind: string, q: WatchPanelQuery): Query {
  const legend = q.legend === undefined ? {} : { legend: q.legend };
  if ('expr' in q) return { expr: q.expr.replaceAll('$NET', NET), ...legend };
  const of = `max by (network, name, ${kind}${q.by ? `, ${q.by}` : ''}) (${q.metric}{${NET}})`;
  return { expr: q.scale === undefined ? of : `${q.scale} * ${of}`, ...legend };
}

function panel(kind: string, p: WatchPanel): cog.Builder<dashboard.Panel> {
  const spec: PanelSpec = {
    title: p.title,
    description: p.description,
    unit: p.unit,
    queries: p.queries.map((q) => query(kind, q)),
    ...(p.width !== undefined && { width: p.width }),
    ...(p.min !== undefined && { min: p.min }),
    ...(p.decimals !== undefined && { decimals: p.decimals }),
    ...(p.bool && { mappings: boolMapping([...p.bool[0]], [...p.bool[1]]) }),
    ...(p.thresholds && { thresholds: p.thresholds.map(([v, c]): [number | null, string] => [v, c]) }),
  };
  if (p.type === 'stat') return statPanel(spec);
  if (p.type === 'state-timeline') return stateTimelinePanel(spec);
  if (p.type === 'table') return tablePanel({ ...spec, ...(p.rename && { rename: { ...p.rename } }) });
  return timeSeriesPanel(spec);
}

function readingPanels(b: dashboard.DashboardBuilder): dashboard.DashboardBuilder {
  return b
    .withRow(row('Reading'))
    .withPanel(
      timeSeriesPanel({
        title: 'Time since the last successful read',
        description:
          'Seconds since each entry was last read (ledger_watch_last_success_timestamp_seconds); ' +
          'LedgerWatchReadFailing fires after 3 read intervals.',
        unit: 's',
        min: 0,
        queries: [
          {
            expr: `time() - max by (network, name) (ledger_watch_last_success_timestamp_seconds{${NET}})`,
            legend: '{{name}}',
          },
        ],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Read failures',
        description: 'Failed reads per second by reason (ledger_watch_read_failures_total).',
        unit: 'reqps',
        min: 0,
        queries: [
          {
            expr: `max by (network, name, reason) (rate(ledger_watch_read_failures_total{${NET}}[$__rate_interval]))`,
            legend: '{{name}} {{reason}}',
          },
        ],
      }),
    );
}

export function watchDashboard(): dashboard.Dashboard {
  let b = dashboardShell({
    uid: WATCH_UID,
    title: 'Ledger fleet / Validators, miners and accounts',
    description:
      "The operator's own validators, miners, accounts, delegations and agents (the watch: section): active set, " +
      'payment, check-ins, balances, delegations, agent scores.',
    nodeSelection: 'multi',
  });
  for (const k of watchKinds())
    for (const r of k.panels ?? []) {
      b = b.withRow(row(r.title));
      for (const p of r.panels) b = b.withPanel(panel(k.kind, p));
    }
  return finish(readingPanels(b));
}
