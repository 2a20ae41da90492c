// Writes the per-node and per-network families of a FleetSnapshot as exposition text (classic
// 0.0.4 or OpenMetrics). Strings only: label sets are escaped once per node and reused across
// families, which keeps a 1,000-node scrape to a few milliseconds.
import { FAILURE_REASONS } from '../domain.js';
import { escapeHelpOpenMetrics, escapeHelpText, escapeLabelValue, formatValue } from '../exposition/grammar.js';
import { ByteWriter } from './byteWriter.js';
import type { FleetSnapshot, NodeView, ProbeView, ValidatorView } from '../state/snapshot.js';

type NetworkView = FleetSnapshot['networks'][number];

type NodeGaugeField = (n: NodeView) => number | undefined;

const NODE_GAUGES: Array<[string, string, NodeGaugeField]> = [
  ['ledger_node_up', 'Whether the node answered its last health or blockNumber probe with a valid answer (1) or not (0).', (n) => (n.up ? 1 : 0)],
  ['ledger_node_healthy', 'Whether /health reported status "ok" (1) or anything else (0).', (n) => (n.health?.status === undefined ? undefined : n.health.status === 'ok' ? 1 : 0)],
  ['ledger_node_block_height', 'Block height of the node, from /health, else from blockNumber.', (n) => n.height],
  ['ledger_node_height_lag_blocks', "Highest height in the node's network minus this node's height.", (n) => n.lagBlocks],
  ['ledger_node_last_block_age_seconds', 'Age of the last block the node has, from /health.', (n) => n.health?.lastBlockAgeSecs],
  ['ledger_node_peers', 'Connected peers, from /health.', (n) => n.health?.peerCount],
  ['ledger_node_mempool_size', 'Transactions in the mempool, from /health.', (n) => n.health?.mempoolSize],
  ['ledger_node_uptime_seconds', 'Node process uptime, from /health.', (n) => n.health?.uptimeSecs],
  ['ledger_node_epoch', 'Current epoch, from /health.', (n) => n.health?.epoch],
  ['ledger_node_validators', 'Number of validators this node reports.', (n) => n.validatorsCount],
  ['ledger_node_miners_active', 'Active miners this node reports.', (n) => n.minersActive],
];

const NETWORK_GAUGES: Array<[string, string, (n: NetworkView) => number | undefined]> = [
  ['ledger_fleet_nodes', 'Configured nodes in the network.', (n) => n.nodes],
  ['ledger_fleet_nodes_up', 'Nodes up in the network.', (n) => n.nodesUp],
  ['ledger_fleet_block_height_max', 'Highest block height over nodes up.', (n) => n.heightMax],
  ['ledger_fleet_block_height_min', 'Lowest block height over nodes up.', (n) => n.heightMin],
  ['ledger_fleet_versions', 'Distinct node versions running on nodes up.', (n) => n.versions],
  ['ledger_validators_active', 'Size of the active validator set.', (n) => n.validators?.list.length],
  ['ledger_validators_stake_tokens', 'Total active stake, in tokens.', (n) => n.validators?.totalStakeTokens],
  ['ledger_fleet_validator_set_mismatch', 'Whether nodes up disagree on the validator set (1) or not (0).', (n) => n.validatorSetMismatch],
  ['ledger_mining_miners', 'Registered miners.', (n) => n.mining?.miners],
  ['ledger_mining_miners_active', 'Active miners.', (n) => n.mining?.active],
  ['ledger_mining_block_reward_tokens', 'Current block reward, in tokens.', (n) => n.mining?.rewardTokens],
  ['ledger_mining_upgrade_height', 'Block height of the mining upgrade.', (n) => n.mining?.upgradeHeight],
  ['ledger_mining_upgraded', 'Whether the mining upgrade is active (1) or not (0).', (n) => (n.mining ? (n.mining.upgraded ? 1 : 0) : undefined)],
  ['ledger_mining_blocks_until_upgrade', 'Blocks left until the mining upgrade height (0 once reached).', (n) => n.mining?.blocksUntilUpgrade],
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

const VALIDATOR_GAUGES: Array<[string, string, (v: ValidatorView) => number | undefined]> = [
  ['ledger_validator_stake_tokens', 'Stake of an active validator, in tokens.', (v) => v.stakeTokens],
  ['ledger_validator_weight', 'Weight of an active validator.', (v) => v.weight],
  ['ledger_validator_agent_score', 'Agent score of an active validator.', (v) => v.agentScore],
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

export function writeFleet(out: ByteWriter, snap: FleetSnapshot, opts: FleetTextOptions): void {
  const w = new Writer(out, opts.openMetrics);
  const nodeLabels = snap.nodes.map((n) => `node="${escapeLabelValue(n.name)}",network="${escapeLabelValue(n.network)}"`);

  for (const [name, help, field] of NODE_GAUGES) {
    w.family(name, 'gauge', help);
    snap.nodes.forEach((n, i) => {
      const v = field(n);
      if (v !== undefined) w.sample(name, nodeLabels[i]!, v);
    });
  }

  w.family('ledger_node_info', 'gauge', 'Node identity: version, chain id, RPC namespace and configured labels. Always 1.');
  snap.nodes.forEach((n, i) => {
    let labels = `${nodeLabels[i]},version="${escapeLabelValue(n.health?.version ?? '')}",chain_id="${escapeLabelValue(n.health?.chainId ?? '')}",rpc_namespace="${escapeLabelValue(n.namespace ?? '')}"`;
    for (const k of opts.infoLabelKeys) {
      const v = n.labels[k];
      if (v !== undefined) labels += `,${k}="${escapeLabelValue(v)}"`;
    }
    w.sample('ledger_node_info', labels, 1);
  });

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

  const netLabels = snap.networks.map((n) => `network="${escapeLabelValue(n.network)}"`);
  for (const [name, help, field] of NETWORK_GAUGES) {
    w.family(name, 'gauge', help);
    snap.networks.forEach((n, i) => {
      const v = field(n);
      if (v !== undefined) w.sample(name, netLabels[i]!, v);
    });
  }
  for (const [name, help, field] of VALIDATOR_GAUGES) {
    w.family(name, 'gauge', help);
    snap.networks.forEach((n, i) => {
      for (const v of n.validators?.list ?? []) {
        const x = field(v);
        if (x !== undefined) w.sample(name, `${netLabels[i]},validator="${escapeLabelValue(v.address)}"`, x);
      }
    });
  }
}
