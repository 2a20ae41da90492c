// One node's lines of one per-node family, as text. The label strings of a node are escaped once
// and kept while its network and probe list stay (labelsOf), since every family repeats them.
import type { NodeView } from '../domain.js';
import { escapeLabelValue, formatValue } from '../exposition/grammar.js';
import type { FleetFamily } from './fleetFamilies.js';

export interface NodeLabels {
  network: string;
  probes: readonly string[];
  /** `node="...",network="..."` */
  node: string;
  /** The node labels plus `,probe="p"`, per probe of the view, in its order. */
  perProbe: string[];
}

export function labelsOf(n: NodeView, prev: NodeLabels | undefined): NodeLabels {
  if (
    prev &&
    prev.network === n.network &&
    prev.probes.length === n.probes.length &&
    n.probes.every((p, j) => p.probe === prev.probes[j])
  )
    return prev;
  const node = `node="${escapeLabelValue(n.name)}",network="${escapeLabelValue(n.network)}"`;
  return {
    network: n.network,
    probes: n.probes.map((p) => p.probe),
    node,
    perProbe: n.probes.map((p) => `${node},probe="${p.probe}"`),
  };
}

/** A monotonic time in seconds as the Unix timestamp of its wall time (`wallOffsetMs`: FleetSnapshot's). */
export function wallSeconds(seconds: number, wallOffsetMs: number): number {
  return wallOffsetMs === 0 ? seconds : (seconds * 1000 + wallOffsetMs) / 1000;
}

/**
 * The lines of family `f` for node `n` ('' when it has none). The height lag is passed apart:
 * it follows the network's highest node, so it is not part of the node's own view.
 */
export function familyLines(
  f: FleetFamily,
  n: NodeView,
  labels: NodeLabels,
  infoKeys: readonly string[],
  lag: number | undefined,
  wallOffsetMs = 0,
): string {
  switch (f.kind) {
    case 'node': {
      const v = f.value(n);
      return v === undefined ? '' : `${f.name}{${labels.node}} ${formatValue(v)}\n`;
    }
    case 'lag':
      return lag === undefined ? '' : `${f.name}{${labels.node}} ${formatValue(lag)}\n`;
    case 'info':
      return infoLine(f.name, n, labels.node, infoKeys);
    case 'probe': {
      let out = '';
      n.probes.forEach((p, j) => {
        const v = f.value(p);
        if (v !== undefined)
          out += `${f.name}{${labels.perProbe[j]}} ${formatValue(f.wallTime ? wallSeconds(v, wallOffsetMs) : v)}\n`;
      });
      return out;
    }
    case 'backoff': {
      let out = '';
      n.probes.forEach((p, j) => (out += `${f.name}{${labels.perProbe[j]}} ${p.backingOff ? 1 : 0}\n`));
      return out;
    }
    case 'failures': {
      let out = '';
      n.probes.forEach((p, j) => {
        for (const [reason, always] of f.reasons) {
          const c = p.failures[reason];
          if (c > 0 || always) out += `${f.name}{${labels.perProbe[j]},reason="${reason}"} ${formatValue(c)}\n`;
        }
      });
      return out;
    }
  }
}

function infoLine(name: string, n: NodeView, nodeLabels: string, infoKeys: readonly string[]): string {
  let labels =
    `${nodeLabels},version="${escapeLabelValue(n.health?.version ?? '')}",` +
    `chain_id="${escapeLabelValue(n.health?.chainId ?? '')}",rpc_namespace="${escapeLabelValue(n.namespace ?? '')}"`;
  for (const k of infoKeys) {
    const v = n.labels[k];
    if (v !== undefined) labels += `,${k}="${escapeLabelValue(v)}"`;
  }
  return `${name}{${labels}} 1\n`;
}
