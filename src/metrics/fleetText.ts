// Writes the per-node and per-network families of a FleetSnapshot as exposition text (classic
// 0.0.4 or OpenMetrics). The families that come from several probes are here; each probe's own
// families come from its descriptor (probe/descriptors.ts). Strings only: label sets are escaped
// once per node and reused across families, which keeps a 1,000-node scrape to a few milliseconds.
import { FAILURE_REASONS, type NetworkView, type NodeView, type ProbeView } from '../domain.js';
import { escapeHelpOpenMetrics, escapeHelpText, escapeLabelValue, formatValue } from '../exposition/grammar.js';
import { probeDescriptors, type ProbeFamily } from '../probe/descriptors.js';
import { ByteWriter } from './byteWriter.js';
import type { FleetSnapshot } from '../state/snapshot.js';

const NODE_GAUGES: Array<[string, string, (n: NodeView) => number | undefined]> = [
  ['ledger_node_up', 'Whether the node answered its last health or blockNumber probe with a valid answer (1) or not (0).', (n) => (n.up ? 1 : 0)],
  ['ledger_node_block_height', 'Block height of the node, from /health, else from blockNumber.', (n) => n.height],
  ['ledger_node_height_lag_blocks', "Highest height in the node's network minus this node's height.", (n) => n.lagBlocks],
];

const NETWORK_GAUGES: Array<[string, string, (n: NetworkView) => number | undefined]> = [
  ['ledger_fleet_nodes', 'Configured nodes in the network.', (n) => n.nodes],
  ['ledger_fleet_nodes_up', 'Nodes up in the network.', (n) => n.nodesUp],
  ['ledger_fleet_block_height_max', 'Highest block height over nodes up.', (n) => n.heightMax],
  ['ledger_fleet_block_height_min', 'Lowest block height over nodes up.', (n) => n.heightMin],
  ['ledger_fleet_versions', 'Distinct node versions running on nodes up.', (n) => n.versions],
];

const PROBE_GAUGES: Array<[string, string, (p: ProbeView) => number | undefined]> = [
  // No sample for an unsupported probe: it did not fail, and 1 would claim a success that never
  // happened; ledger_probe_supported says why the series is absent.
  ['ledger_probe_success', 'Whether the last run of the probe succeeded (1) or not (0); absent while the node does not offer the method.', (p) => (p.success === undefined || !p.supported ? undefined : p.success ? 1 : 0)],
  ['ledger_probe_duration_seconds', 'Duration of the last run of the probe.', (p) => p.durationSeconds],
  ['ledger_probe_last_success_timestamp_seconds', 'Unix time of the last successful run of the probe.', (p) => p.lastSuccessSeconds],
  ['ledger_probe_supported', 'Whether the node offers the probed method (0 on earlier node builds).', (p) => (p.supported ? 1 : 0)],
  ['ledger_probe_backoff', 'Whether the probe is polled at a reduced rate after consecutive failures (1) or not (0).', (p) => (p.backingOff ? 1 : 0)],
  ['ledger_probe_consecutive_failures', 'Failures of the probe in a row.', (p) => p.consecutiveFailures],
];

class Writer {
  constructor(
    private readonly out: ByteWriter,
    private readonly om: boolean,
  ) {}

  /** HELP and TYPE; an OpenMetrics counter family is named without its `_total` suffix. */
  family(name: string, type: 'gauge' | 'counter', help: string): void {
    const fam = this.om && type === 'counter' ? name.replace(/_total$/, '') : name;
    const text = this.om ? escapeHelpOpenMetrics(help) : escapeHelpText(help);
    this.out.write(`# HELP ${fam} ${text}\n# TYPE ${fam} ${type}\n`);
  }

  /** `labels` is the inside of the braces, already escaped. */
  sample(name: string, labels: string, value: number): void {
    this.out.write(`${name}{${labels}} ${formatValue(value)}\n`);
  }
}

export interface FleetTextOptions {
  openMetrics: boolean;
  /** Configured label keys exposed on ledger_node_info (reserved names already removed). */
  infoLabelKeys: string[];
}

/** The names of the families written here rather than by a probe descriptor. */
export const SHARED_FAMILIES: readonly string[] = [
  ...NODE_GAUGES.map(([name]) => name),
  'ledger_node_info',
  ...PROBE_GAUGES.map(([name]) => name),
  'ledger_probe_failures_total',
  ...NETWORK_GAUGES.map(([name]) => name),
];

export function writeFleet(out: ByteWriter, snap: FleetSnapshot, opts: FleetTextOptions): void {
  const w = new Writer(out, opts.openMetrics);
  const nodeLabels = snap.nodes.map((n) => `node="${escapeLabelValue(n.name)}",network="${escapeLabelValue(n.network)}"`);
  const netLabels = snap.networks.map((n) => `network="${escapeLabelValue(n.network)}"`);
  const families = [...probeDescriptors()].flatMap((d) => d.metrics);

  for (const [name, help, field] of NODE_GAUGES) writeFamily(w, { per: 'node', name, help, value: (_, n) => field(n) }, snap, nodeLabels, netLabels);
  for (const f of families) if (f.per === 'node') writeFamily(w, f, snap, nodeLabels, netLabels);
  writeInfo(w, snap, nodeLabels, opts.infoLabelKeys);
  writeProbes(w, snap, nodeLabels);
  for (const [name, help, field] of NETWORK_GAUGES) writeFamily(w, { per: 'network', name, help, value: field }, snap, nodeLabels, netLabels);
  for (const f of families) if (f.per !== 'node') writeFamily(w, f, snap, nodeLabels, netLabels);
}

const NO_VALUES = { upstreamVersion: 0 };

function writeFamily(w: Writer, f: ProbeFamily, snap: FleetSnapshot, nodeLabels: string[], netLabels: string[]): void {
  w.family(f.name, 'gauge', f.help);
  if (f.per === 'node') {
    snap.nodes.forEach((n, i) => {
      const v = f.value(n.values ?? NO_VALUES, n);
      if (v !== undefined) w.sample(f.name, nodeLabels[i]!, v);
    });
  } else if (f.per === 'network') {
    snap.networks.forEach((n, i) => {
      const v = f.value(n);
      if (v !== undefined) w.sample(f.name, netLabels[i]!, v);
    });
  } else {
    snap.networks.forEach((n, i) => {
      for (const v of n.validators?.list ?? []) {
        const x = f.value(v);
        if (x !== undefined) w.sample(f.name, `${netLabels[i]},validator="${escapeLabelValue(v.address)}"`, x);
      }
    });
  }
}

function writeInfo(w: Writer, snap: FleetSnapshot, nodeLabels: string[], infoLabelKeys: string[]): void {
  w.family('ledger_node_info', 'gauge', 'Node identity: version, chain id, RPC namespace and configured labels. Always 1.');
  snap.nodes.forEach((n, i) => {
    let labels = `${nodeLabels[i]},version="${escapeLabelValue(n.health?.version ?? '')}",chain_id="${escapeLabelValue(n.health?.chainId ?? '')}",rpc_namespace="${escapeLabelValue(n.namespace ?? '')}"`;
    for (const k of infoLabelKeys) {
      const v = n.labels[k];
      if (v !== undefined) labels += `,${k}="${escapeLabelValue(v)}"`;
    }
    w.sample('ledger_node_info', labels, 1);
  });
}

function writeProbes(w: Writer, snap: FleetSnapshot, nodeLabels: string[]): void {
  // Probe label sets: node labels + probe, built once per (node, probe).
  const probeLabels = snap.nodes.map((n, i) => n.probes.map((p) => `${nodeLabels[i]},probe="${p.probe}"`));
  for (const [name, help, field] of PROBE_GAUGES) {
    w.family(name, 'gauge', help);
    snap.nodes.forEach((n, i) =>
      n.probes.forEach((p, j) => {
        const v = field(p);
        if (v !== undefined) w.sample(name, probeLabels[i]![j]!, v);
      }),
    );
  }
  w.family('ledger_probe_failures_total', 'counter', 'Failed probe runs by reason: timeout, connect, http_5xx, http_4xx, invalid_response, rpc_error.');
  snap.nodes.forEach((n, i) =>
    n.probes.forEach((p, j) => {
      // http_5xx from 0 (alerts take increase() of it, which must see the first failure); other
      // reasons from their first occurrence: 25,000 fewer series per 1,000 nodes.
      for (const reason of FAILURE_REASONS) {
        const n = p.failures[reason];
        if (n > 0 || reason === 'http_5xx') w.sample('ledger_probe_failures_total', `${probeLabels[i]![j]},reason="${reason}"`, n);
      }
    }),
  );
}
