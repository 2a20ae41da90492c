// Writes the per-node and per-network families of a FleetSnapshot as exposition text (classic
// 0.0.4 or OpenMetrics), family by family: each node's lines come ready from its chunk
// (nodeChunks.ts), the lag and backoff lines and the few per-network lines are written here.
import { escapeLabelValue, formatValue } from '../exposition/grammar.js';
import type { FleetSnapshot } from '../state/snapshot.js';
import { ByteWriter } from './byteWriter.js';
import { NodeChunks, type Chunk } from './nodeChunks.js';
import type { FleetLayout, NetworkFamily } from './fleetFamilies.js';

export { SHARED_FAMILIES } from './fleetFamilies.js';

export interface FleetTextOptions {
  openMetrics: boolean;
  /** Configured label keys exposed on ledger_node_info (reserved names already removed). */
  infoLabelKeys: readonly string[];
}

/** `chunks` keeps node lines between calls; without it every node's lines are built now. */
export function writeFleet(out: ByteWriter, snap: FleetSnapshot, opts: FleetTextOptions, chunks: NodeChunks = new NodeChunks()): void {
  const layout = chunks.layout();
  const nodeChunks = snap.nodes.map((n) => chunks.get(n, opts.infoLabelKeys, layout));
  writeNodeFamilies(out, snap, nodeChunks, layout, opts.openMetrics);
  writeNetworkFamilies(out, snap, layout.networkFamilies, opts.openMetrics);
}

function writeNodeFamilies(out: ByteWriter, snap: FleetSnapshot, nodeChunks: Chunk[], layout: FleetLayout, om: boolean): void {
  let slot = 0;
  for (const f of layout.nodeFamilies) {
    out.write(om ? f.openMetrics : f.text);
    if (f.kind === 'lag') {
      snap.nodes.forEach((n, i) => {
        if (n.lagBlocks !== undefined) out.write(`${nodeChunks[i]!.lagPrefix}${formatValue(n.lagBlocks)}\n`);
      });
    } else if (f.kind === 'backoff') {
      snap.nodes.forEach((n, i) => {
        const prefixes = nodeChunks[i]!.backoffPrefixes;
        n.probes.forEach((p, j) => out.write(`${prefixes[j]}${p.backingOff ? 1 : 0}\n`));
      });
    } else {
      for (const c of nodeChunks) out.writeRange(c.bytes, slot === 0 ? 0 : c.ends[slot - 1]!, c.ends[slot]!);
      slot++;
    }
  }
}

function writeNetworkFamilies(out: ByteWriter, snap: FleetSnapshot, families: NetworkFamily[], om: boolean): void {
  const netLabels = snap.networks.map((n) => `network="${escapeLabelValue(n.network)}"`);
  for (const f of families) {
    out.write(om ? f.openMetrics : f.text);
    snap.networks.forEach((n, i) => {
      if (f.per === 'network') {
        const v = f.value(n);
        if (v !== undefined) out.write(`${f.name}{${netLabels[i]}} ${formatValue(v)}\n`);
        return;
      }
      for (const val of n.validators?.list ?? []) {
        const x = f.value(val);
        if (x !== undefined) out.write(`${f.name}{${netLabels[i]},validator="${escapeLabelValue(val.address)}"} ${formatValue(x)}\n`);
      }
    });
  }
}
