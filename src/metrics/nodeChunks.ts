// Each node's lines of every per-node family, encoded once per node revision into one Buffer:
// a scrape copies byte ranges instead of formatting and encoding ~50 lines per node. Built soon
// after a node's results arrive (MetricsView batches them), so at 2 s polling the scrape mostly
// finds them ready; a node changed since is built at the scrape. Two families change without a
// new revision and are written at each scrape from short kept prefixes: the height lag (it
// follows the network's highest node) and probe backoff (it ends with time alone).
import type { NodeView } from '../domain.js';
import { escapeLabelValue, formatValue } from '../exposition/grammar.js';
import { probeDescriptors, type ProbeDescriptor } from '../probe/descriptors.js';
import type { FleetFamily, FleetLayout } from './fleetFamilies.js';
import { fleetLayout } from './fleetFamilies.js';

export interface Chunk {
  revision: number | undefined;
  infoKeys: readonly string[];
  layout: FleetLayout;
  /** Lines of every static family (layout.slots order), back to back. */
  bytes: Buffer;
  /** End offset in `bytes` of each static family's lines; the start is the previous end. */
  ends: Uint32Array;
  /** Escaped label sets, reused by the node's next chunk while its network and probes stay. */
  labels: NodeLabels;
  /** `ledger_node_height_lag_blocks{...} ` */
  lagPrefix: string;
  /** `ledger_probe_backoff{...,probe="p"} ` per probe of the view, in its order. */
  backoffPrefixes: string[];
  seen: number;
}

/** The lines of one static family for one node ('' when the node has none). */
function familyLines(f: FleetFamily, n: NodeView, nodeLabels: string, probeLabels: string[], infoKeys: readonly string[]): string {
  switch (f.kind) {
    case 'node': {
      const v = f.value(n);
      return v === undefined ? '' : `${f.name}{${nodeLabels}} ${formatValue(v)}\n`;
    }
    case 'info': {
      let labels = `${nodeLabels},version="${escapeLabelValue(n.health?.version ?? '')}",chain_id="${escapeLabelValue(n.health?.chainId ?? '')}",rpc_namespace="${escapeLabelValue(n.namespace ?? '')}"`;
      for (const k of infoKeys) {
        const v = n.labels[k];
        if (v !== undefined) labels += `,${k}="${escapeLabelValue(v)}"`;
      }
      return `${f.name}{${labels}} 1\n`;
    }
    case 'probe': {
      let out = '';
      n.probes.forEach((p, j) => {
        const v = f.value(p);
        if (v !== undefined) out += `${f.name}{${probeLabels[j]}} ${formatValue(v)}\n`;
      });
      return out;
    }
    case 'failures': {
      let out = '';
      n.probes.forEach((p, j) => {
        for (const [reason, always] of f.reasons) {
          const c = p.failures[reason];
          if (c > 0 || always) out += `${f.name}{${probeLabels[j]},reason="${reason}"} ${formatValue(c)}\n`;
        }
      });
      return out;
    }
    default:
      return '';
  }
}

interface NodeLabels {
  network: string;
  probes: readonly string[];
  node: string;
  perProbe: string[];
}

function labelsOf(n: NodeView, prev: NodeLabels | undefined): NodeLabels {
  if (prev && prev.network === n.network && prev.probes.length === n.probes.length && n.probes.every((p, j) => p.probe === prev.probes[j])) return prev;
  const node = `node="${escapeLabelValue(n.name)}",network="${escapeLabelValue(n.network)}"`;
  return { network: n.network, probes: n.probes.map((p) => p.probe), node, perProbe: n.probes.map((p) => `${node},probe="${p.probe}"`) };
}

/** Builds a node's chunk; `prev` (the node's last one) lends its label strings. */
export function buildChunk(n: NodeView, infoKeys: readonly string[], layout: FleetLayout, prev?: Chunk): Chunk {
  const labels = labelsOf(n, prev?.labels);
  const parts = layout.slots.map((f) => familyLines(f, n, labels.node, labels.perProbe, infoKeys));
  const text = parts.join('');
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text, 0, 'utf8');
  const ends = new Uint32Array(parts.length);
  // ASCII (the usual case): offsets in characters are offsets in bytes.
  const ascii = bytes.length === text.length;
  let at = 0;
  parts.forEach((p, i) => {
    at += ascii ? p.length : Buffer.byteLength(p);
    ends[i] = at;
  });
  const reuse = prev !== undefined && prev.labels === labels;
  return {
    revision: n.revision,
    infoKeys,
    layout,
    bytes,
    ends,
    labels,
    lagPrefix: reuse ? prev.lagPrefix : `ledger_node_height_lag_blocks{${labels.node}} `,
    backoffPrefixes: reuse ? prev.backoffPrefixes : labels.perProbe.map((l) => `ledger_probe_backoff{${l}} `),
    seen: 0,
  };
}

/** Every node's chunk, kept while the node's revision, the info keys and the probe table stay. */
export class NodeChunks {
  private readonly byName = new Map<string, Chunk>();
  private generation = 0;
  private layoutOf: { descriptors: ProbeDescriptor[]; layout: FleetLayout } | undefined;

  /** The layout for the probe table in use (probes may be registered at run time). */
  layout(): FleetLayout {
    const descriptors = [...probeDescriptors()];
    const cur = this.layoutOf;
    if (!cur || cur.descriptors.length !== descriptors.length || cur.descriptors.some((d, i) => d !== descriptors[i])) {
      this.layoutOf = { descriptors, layout: fleetLayout(descriptors) };
    }
    return this.layoutOf!.layout;
  }

  /** The node's chunk, built now if missing or stale. */
  get(n: NodeView, infoKeys: readonly string[], layout: FleetLayout = this.layout()): Chunk {
    let c = this.byName.get(n.name);
    if (!c || c.revision === undefined || c.revision !== n.revision || c.infoKeys !== infoKeys || c.layout !== layout) {
      c = buildChunk(n, infoKeys, layout, c);
      this.byName.set(n.name, c);
    }
    c.seen = this.generation;
    return c;
  }

  /** After a scrape: forgets nodes it did not show (removed by a reload). */
  sweep(): void {
    for (const [name, c] of this.byName) if (c.seen !== this.generation) this.byName.delete(name);
    this.generation++;
  }

  get size(): number {
    return this.byName.size;
  }
}
