// Every node's lines of every per-node family, kept between scrapes in runs of consecutive nodes
// (segment.ts) and brought up to date where a node changed: after its results arrive (update,
// batched by the view off the scrape path), and at the scrape for what changes without a new
// revision (the height lag follows the network's highest node; backoff ends with time alone)
// or was not written yet. Only the families whose values changed are written again (shownValues.ts).
// A scrape then copies a few thousand ready Buffers.
import { STEP_THRESHOLD_MS } from '../clock/steps.js';
import type { NodeView } from '../domain.js';
import { nodeProbes } from '../probes/registry.js';
import type { NodeProbe } from '../probes/types.js';
import type { TextOut } from './byteWriter.js';
import { fleetLayout, type FleetLayout } from './fleetFamilies.js';
import { KeptCompression } from './keptCompression.js';
import { familyLines, labelsOf, type NodeLabels } from './nodeLines.js';
import { Segment, SEGMENT_NODES } from './segment.js';
import { ShownValues, valuePlan, type ValuePlan } from './shownValues.js';
import { drain } from './steps.js';

interface Entry {
  name: string;
  /** The view revision the lines were written from (undefined: rewritten at every scrape). */
  revision: number | undefined;
  /** The height lag the lines show. */
  lag: number | undefined;
  /** The probe views the backoff lines were read from: snapshots share the array while no flag changed. */
  probes: readonly unknown[];
  labels: NodeLabels;
  seg: Segment;
  /** What the node's lines show, value by value (shared by the run of nodes). */
  shown: ShownValues;
  at: number;
}

export class FleetColumns {
  /** In /metrics order (the snapshot's node order at the last scrape). */
  private entries: Entry[] = [];
  private byName = new Map<string, Entry>();
  private segments: Segment[] = [];
  /** What the kept lines were written for; a change rebuilds them all. */
  private infoKeys: readonly string[] = [];
  /** The wall clock's lead the timestamps were written with (FleetSnapshot.wallOffsetMs). */
  private offsetMs = 0;
  private built: FleetLayout | undefined;
  private layoutOf: { probes: NodeProbe[]; layout: FleetLayout; plan: ValuePlan } | undefined;
  /** Compressed blocks of the lines, for gzip scrapes. */
  private readonly kept = new KeptCompression();

  /** The layout for the probe table in use (probes may be registered at run time). */
  layout(): FleetLayout {
    const probes = nodeProbes();
    const cur = this.layoutOf;
    if (!cur || cur.probes.length !== probes.length || cur.probes.some((d, i) => d !== probes[i])) {
      const layout = fleetLayout(probes);
      this.layoutOf = { probes, layout, plan: valuePlan(layout.nodeFamilies, probes.length) };
    }
    return this.layoutOf!.layout;
  }

  /** A node's results arrived: rewrites its lines now if it is placed (else the scrape places it). */
  update(n: NodeView, infoKeys: readonly string[], layout: FleetLayout = this.layout()): void {
    if (infoKeys !== this.infoKeys || layout !== this.built) return;
    const e = this.byName.get(n.name);
    if (e && (e.revision === undefined || e.revision !== n.revision)) this.rewrite(e, n, e.lag, layout);
  }

  /** The wall clock's lead the kept timestamps show (other timestamps of the scrape use it too). */
  get wallOffsetMs(): number {
    return this.offsetMs;
  }

  /**
   * Brings the lines up to `nodes` (a snapshot: order, lag, backoff) and writes the per-node
   * families. A wall clock stepped (its lead moved by more than a second) rewrites every line:
   * timestamps are wall times; a smaller drift (a slew) is not worth rewriting the fleet for.
   */
  write(
    out: TextOut,
    nodes: readonly NodeView[],
    infoKeys: readonly string[],
    openMetrics: boolean,
    wallOffsetMs = 0,
  ): void {
    drain(this.steps(out, nodes, infoKeys, openMetrics, wallOffsetMs));
  }

  /**
   * write() one family at a time: the lines are brought up to `nodes` at the first step, then each
   * step writes one family's block whole (its stamp and bytes read together), so a streamed scrape
   * may pause between steps while results rewrite lines in place.
   */
  *steps(
    out: TextOut,
    nodes: readonly NodeView[],
    infoKeys: readonly string[],
    openMetrics: boolean,
    wallOffsetMs = 0,
  ): Generator<void, void, undefined> {
    const layout = this.layout();
    const stepped = Math.abs(wallOffsetMs - this.offsetMs) > STEP_THRESHOLD_MS;
    if (stepped) this.offsetMs = wallOffsetMs;
    if (stepped || infoKeys !== this.infoKeys || layout !== this.built || !this.placed(nodes))
      this.rebuild(nodes, infoKeys, layout);
    else this.refresh(nodes, layout);
    const segments = this.segments;
    const families = layout.nodeFamilies;
    for (let i = 0; i < families.length; i++) {
      const f = families[i]!;
      // Versions only grow, so their sum changes whenever one of them does.
      let stamp = 0;
      for (const s of segments) stamp += s.version(i);
      // A family's every line is one block (with its header, which differs by format). Blocks of
      // 1,024 nodes kept about as much of a simulated 10,000-node fleet (46% against 45% of the
      // body) but made ~300 pieces per scrape instead of ~30, each compressed apart, and cost
      // more CPU in all.
      this.kept.write(out, (i << 1) | (openMetrics ? 1 : 0), stamp, () => {
        out.write(openMetrics ? f.openMetrics : f.text);
        for (const s of segments) s.writeFamily(i, out);
      });
      yield;
    }
  }

  get size(): number {
    return this.entries.length;
  }

  private placed(nodes: readonly NodeView[]): boolean {
    if (nodes.length !== this.entries.length) return false;
    for (let i = 0; i < nodes.length; i++) if (nodes[i]!.name !== this.entries[i]!.name) return false;
    return true;
  }

  private refresh(nodes: readonly NodeView[], layout: FleetLayout): void {
    const lagFamily = layout.nodeFamilies[layout.lagSlot]!;
    const backoffFamily = layout.nodeFamilies[layout.backoffSlot]!;
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i]!;
      const e = this.entries[i]!;
      if (e.revision === undefined || e.revision !== n.revision) {
        this.rewrite(e, n, n.lagBlocks, layout);
        continue;
      }
      if (e.shown.take(e.at, layout.lagSlot, lagFamily, n, n.lagBlocks)) {
        e.lag = n.lagBlocks;
        e.seg.set(layout.lagSlot, e.at, familyLines(lagFamily, n, e.labels, this.infoKeys, e.lag, this.offsetMs));
      }
      if (n.probes === e.probes) continue;
      e.probes = n.probes;
      if (e.shown.take(e.at, layout.backoffSlot, backoffFamily, n, e.lag))
        e.seg.set(
          layout.backoffSlot,
          e.at,
          familyLines(backoffFamily, n, e.labels, this.infoKeys, e.lag, this.offsetMs),
        );
    }
  }

  /** One node's lines, from its view `n` and the height lag `lag`: the families whose values changed. */
  private rewrite(e: Entry, n: NodeView, lag: number | undefined, layout: FleetLayout): void {
    const labels = labelsOf(n, e.labels);
    if (labels !== e.labels) {
      // A new network or probe list: every line's labels change.
      e.labels = labels;
      e.shown.forget(e.at);
    }
    layout.nodeFamilies.forEach((f, i) => {
      if (e.shown.take(e.at, i, f, n, lag))
        e.seg.set(i, e.at, familyLines(f, n, labels, this.infoKeys, lag, this.offsetMs));
    });
    e.revision = n.revision;
    e.lag = lag;
    e.probes = n.probes;
  }

  /** Places every node anew (first scrape, nodes added, removed or reordered, info keys or probe table changed). */
  private rebuild(nodes: readonly NodeView[], infoKeys: readonly string[], layout: FleetLayout): void {
    const plan = this.layoutOf!.plan;
    const old = this.byName;
    this.entries = [];
    this.byName = new Map();
    this.segments = [];
    for (let from = 0; from < nodes.length; from += SEGMENT_NODES) {
      const run = nodes.slice(from, from + SEGMENT_NODES);
      const labels = run.map((n) => labelsOf(n, old.get(n.name)?.labels));
      const lines = run.map((n, i) =>
        layout.nodeFamilies.map((f) => familyLines(f, n, labels[i]!, infoKeys, n.lagBlocks, this.offsetMs)),
      );
      const seg = new Segment(lines, layout.nodeFamilies.length);
      const shown = new ShownValues(run.length, plan);
      run.forEach((n, i) => {
        layout.nodeFamilies.forEach((f, k) => shown.take(i, k, f, n, n.lagBlocks));
        const e: Entry = {
          name: n.name,
          revision: n.revision,
          lag: n.lagBlocks,
          probes: n.probes,
          labels: labels[i]!,
          seg,
          shown,
          at: i,
        };
        this.entries.push(e);
        this.byName.set(n.name, e);
      });
      this.segments.push(seg);
    }
    this.infoKeys = infoKeys;
    this.built = layout;
    this.kept.clear();
  }
}
