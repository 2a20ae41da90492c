// Writes the per-node and per-network families of a FleetSnapshot as exposition text (classic
// 0.0.4 or OpenMetrics): the per-node lines come ready from the kept columns (fleetColumns.ts),
// the few per-network lines are written here.
import { escapeHelpOpenMetrics, escapeHelpText, escapeLabelValue, formatValue } from '../exposition/grammar.js';
import { fanOutProbes } from '../probes/registry.js';
import { watchFamilies } from '../watch/kinds/registered.js';
import type { WatchedEntryView, WatchSnapshot } from '../watch/types.js';
import type { FanOutEntity } from '../domain.js';
import type { FleetSnapshot } from '../state/snapshot.js';
import type { TextOut } from './byteWriter.js';
import { FleetColumns } from './fleetColumns.js';
import type { NetworkFamily } from './fleetFamilies.js';
import { wallSeconds } from './nodeLines.js';
import { drain } from './steps.js';

export { SHARED_FAMILIES } from './fleetFamilies.js';

export interface FleetTextOptions {
  openMetrics: boolean;
  /** Configured label keys exposed on ledger_node_info (reserved names already removed). */
  infoLabelKeys: readonly string[];
}

/** `columns` keeps node lines between calls; without it every node's lines are built now. */
export function writeFleet(
  out: TextOut,
  snap: FleetSnapshot,
  opts: FleetTextOptions,
  columns: FleetColumns = new FleetColumns(),
): void {
  drain(fleetSteps(out, snap, opts, columns));
}

/** writeFleet one per-node family at a time (FleetColumns.steps), then the rest in one step. */
export function* fleetSteps(
  out: TextOut,
  snap: FleetSnapshot,
  opts: FleetTextOptions,
  columns: FleetColumns,
): Generator<void, void, undefined> {
  yield* columns.steps(out, snap.nodes, opts.infoLabelKeys, opts.openMetrics, snap.wallOffsetMs);
  writeNetworkFamilies(out, snap, columns.layout().networkFamilies, opts.openMetrics);
  if (snap.fanOut) writeFanOutFamilies(out, snap.fanOut, opts.openMetrics);
  if (snap.watch) writeWatchFamilies(out, snap.watch, opts.openMetrics, columns.wallOffsetMs);
}

/** The ledger_watch_* families: one sample per entry (and extra label value), labels network, name, kind = address. */
function writeWatchFamilies(out: TextOut, watch: WatchSnapshot, om: boolean, wallOffsetMs: number): void {
  const lists = new Map<string, WatchedEntryView[]>();
  for (const v of watch.entries) {
    const list = lists.get(v.kind);
    if (list) list.push(v);
    else lists.set(v.kind, [v]);
  }
  const labels = new Map<WatchedEntryView, string>();
  const labelsOf = (v: WatchedEntryView) => {
    let l = labels.get(v);
    if (l === undefined) {
      l =
        `network="${escapeLabelValue(v.network)}",name="${escapeLabelValue(v.name)}",` +
        `${v.kind}="${escapeLabelValue(v.address)}"`;
      labels.set(v, l);
    }
    return l;
  };
  for (const f of watchFamilies()) {
    const name = om && f.type === 'counter' ? f.name.replace(/_total$/, '') : f.name;
    out.write(
      `# HELP ${name} ${om ? escapeHelpOpenMetrics(f.help) : escapeHelpText(f.help)}\n# TYPE ${name} ${f.type}\n`,
    );
    for (const kind of f.kinds) {
      for (const v of lists.get(kind) ?? []) {
        for (const [extra, x] of f.samples(v))
          if (x !== undefined)
            out.write(
              `${f.name}{${labelsOf(v)}${extra}} ${formatValue(f.wallTime ? wallSeconds(x, wallOffsetMs) : x)}\n`,
            );
      }
    }
  }
}

/** Each fan-out probe's families: one sample per entity read (labels network, the entity's labels, its label). */
function writeFanOutFamilies(out: TextOut, reads: NonNullable<FleetSnapshot['fanOut']>, om: boolean): void {
  for (const [name, probe] of fanOutProbes()) {
    const list = reads.get(name) ?? [];
    for (const f of probe.metrics) {
      out.write(
        `# HELP ${f.name} ${om ? escapeHelpOpenMetrics(f.help) : escapeHelpText(f.help)}\n# TYPE ${f.name} gauge\n`,
      );
      for (const r of list) {
        if (r.data === undefined) continue;
        const v = f.value(r.data, r.entity);
        if (v !== undefined) out.write(`${f.name}{${entityLabels(r.entity)}} ${formatValue(v)}\n`);
      }
    }
  }
}

export function entityLabels(e: FanOutEntity): string {
  let l = `network="${escapeLabelValue(e.network)}"`;
  for (const [k, v] of Object.entries(e.labels ?? {})) l += `,${k}="${escapeLabelValue(v)}"`;
  return `${l},${e.label}="${escapeLabelValue(e.id)}"`;
}

function writeNetworkFamilies(out: TextOut, snap: FleetSnapshot, families: NetworkFamily[], om: boolean): void {
  const netLabels = snap.networks.map((n) => `network="${escapeLabelValue(n.network)}"`);
  for (const f of families) {
    out.write(om ? f.openMetrics : f.text);
    snap.networks.forEach((n, i) => {
      if (f.per === 'network') {
        const v = f.value(n);
        if (v !== undefined) out.write(`${f.name}{${netLabels[i]}} ${formatValue(v)}\n`);
        return;
      }
      const entities = f.entities(n);
      if (!entities) return;
      const label = `,${f.label}="`;
      for (const e of entities) {
        const x = f.value(e);
        if (x !== undefined)
          out.write(`${f.name}{${netLabels[i]}${label}${escapeLabelValue(f.id(e))}"} ${formatValue(x)}\n`);
      }
    });
  }
}
