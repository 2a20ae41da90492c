// A watch kind's rows of the watch dashboard, as data (tools/dashboards/watch.ts draws them with
// the Grafana SDK, which the exporter itself does not ship): each kind declares its own.

/**
 * One query: a ledger_watch_* metric, one series per entry (`max by (network, name, <kind>, <by>)`
 * over the dashboard's networks; `scale` multiplies it), or a whole expression where `$NET` stands
 * for the dashboard's network selector.
 */
export type WatchPanelQuery =
  { metric: string; by?: string; scale?: number; legend?: string } | { expr: string; legend?: string };

export interface WatchPanel {
  type: 'stat' | 'timeseries' | 'table' | 'state-timeline';
  title: string;
  description: string;
  /** Grafana unit id (`none`, `short`, `percentunit`, `s`...). */
  unit: string;
  queries: readonly WatchPanelQuery[];
  /** Grid width out of 24. */
  width?: number;
  min?: number;
  decimals?: number;
  /** 0/1 values in words and colours: [word, colour] for 0, then for 1. */
  bool?: readonly [readonly [string, string], readonly [string, string]];
  /** Threshold steps as [from value, colour]; the first starts at -Infinity (null). */
  thresholds?: ReadonlyArray<readonly [number | null, string]>;
  /** Tables: column renames (`Value #A` -> `rank`). */
  rename?: Readonly<Record<string, string>>;
}

export interface WatchPanelRow {
  title: string;
  panels: readonly WatchPanel[];
}
