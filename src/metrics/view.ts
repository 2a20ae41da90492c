// The /metrics view: prom-client registries of our own, filled from one FleetSnapshot per
// scrape, so a removed node, a departed validator or a changed version simply stops appearing.
// Two registries (text 0.0.4 and OpenMetrics) with separate metric objects, because prom-client
// renames counters in place when rendering OpenMetrics.
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { FAILURE_REASONS, PROBE_NAMES, type ProbeName } from '../domain.js';
import type { PreparedUpstream } from '../exposition/index.js';
import type { FleetSnapshot } from '../state/snapshot.js';

export const OPENMETRICS_CONTENT_TYPE = Registry.OPENMETRICS_CONTENT_TYPE;
export const TEXT_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** Label names a configured label may not take (they are ours). */
export const RESERVED_LABELS = ['node', 'network', 'version', 'chain_id', 'rpc_namespace'];

/** Counters the daemon keeps about itself. */
export interface ExporterCounters {
  configReloads: { success: number; failure: number };
  pollOverruns: Map<ProbeName, number>;
}

/** One scrape's inputs, computed once and shared by every collector. */
export interface ScrapeInput {
  snapshot: FleetSnapshot;
  upstream: Iterable<PreparedUpstream>;
  counters: ExporterCounters;
}

/** Extra metric sources (evidence store, agent platform) register their own collectors per registry. */
export type RegistryExtension = (registry: Registry) => void;

export interface MetricsViewOptions {
  version: string;
  /** Union of configured label keys across nodes (for ledger_node_info). */
  infoLabelKeys: string[];
  extensions?: RegistryExtension[];
  /** process_* and nodejs_* metrics; off in unit tests for stable output. */
  defaultMetrics?: boolean;
}

type NodeGaugeField = (n: FleetSnapshot['nodes'][number]) => number | undefined;

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

type NetworkView = FleetSnapshot['networks'][number];
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

/** Builds one registry whose collectors read `input()` at scrape time. */
function buildRegistry(contentType: string, opts: MetricsViewOptions, input: () => ScrapeInput): Registry {
  // prom-client's typings omit the constructor's content-type argument.
  const registers = [new (Registry as unknown as new (contentType: string) => Registry)(contentType)];
  const registry = registers[0]!;
  const nodeLabels = ['node', 'network'];

  for (const [name, help, field] of NODE_GAUGES) {
    new Gauge({
      name,
      help,
      labelNames: nodeLabels,
      registers,
      collect() {
        this.reset();
        for (const n of input().snapshot.nodes) {
          const v = field(n);
          if (v !== undefined) this.set({ node: n.name, network: n.network }, v);
        }
      },
    });
  }

  const infoKeys = opts.infoLabelKeys.filter((k) => !RESERVED_LABELS.includes(k));
  new Gauge({
    name: 'ledger_node_info',
    help: 'Node identity: version, chain id, RPC namespace and configured labels. Always 1.',
    labelNames: [...nodeLabels, 'version', 'chain_id', 'rpc_namespace', ...infoKeys],
    registers,
    collect() {
      this.reset();
      for (const n of input().snapshot.nodes) {
        const labels: Record<string, string> = {
          node: n.name,
          network: n.network,
          version: n.health?.version ?? '',
          chain_id: n.health?.chainId ?? '',
          rpc_namespace: n.namespace ?? '',
        };
        for (const k of infoKeys) if (n.labels[k] !== undefined) labels[k] = n.labels[k];
        this.set(labels, 1);
      }
    },
  });

  const probeLabels = [...nodeLabels, 'probe'];
  const probeGauges: Array<[string, string, (p: FleetSnapshot['nodes'][number]['probes'][number]) => number | undefined]> = [
    ['ledger_probe_success', 'Whether the last run of the probe succeeded (1) or not (0).', (p) => (p.success === undefined ? undefined : p.success ? 1 : 0)],
    ['ledger_probe_duration_seconds', 'Duration of the last run of the probe.', (p) => p.durationSeconds],
    ['ledger_probe_last_success_timestamp_seconds', 'Unix time of the last successful run of the probe.', (p) => p.lastSuccessSeconds],
    ['ledger_probe_supported', 'Whether the node offers the probed method (0 on earlier node builds).', (p) => (p.supported ? 1 : 0)],
    ['ledger_probe_backoff', 'Whether the probe is polled at a reduced rate after consecutive failures (1) or not (0).', (p) => (p.backingOff ? 1 : 0)],
    ['ledger_probe_consecutive_failures', 'Failures of the probe in a row.', (p) => p.consecutiveFailures],
  ];
  for (const [name, help, field] of probeGauges) {
    new Gauge({
      name,
      help,
      labelNames: probeLabels,
      registers,
      collect() {
        this.reset();
        for (const n of input().snapshot.nodes) {
          for (const p of n.probes) {
            const v = field(p);
            if (v !== undefined) this.set({ node: n.name, network: n.network, probe: p.probe }, v);
          }
        }
      },
    });
  }
  new Counter({
    name: 'ledger_probe_failures_total',
    help: 'Failed probe runs by reason: timeout, connect, http_5xx, http_4xx, invalid_response, rpc_error.',
    labelNames: [...probeLabels, 'reason'],
    registers,
    collect() {
      this.reset();
      for (const n of input().snapshot.nodes) {
        for (const p of n.probes) {
          // Every reason is exported from 0, so increase() sees the first failure.
          for (const reason of FAILURE_REASONS) this.inc({ node: n.name, network: n.network, probe: p.probe, reason }, p.failures[reason]);
        }
      }
    },
  });

  for (const [name, help, field] of NETWORK_GAUGES) {
    new Gauge({
      name,
      help,
      labelNames: ['network'],
      registers,
      collect() {
        this.reset();
        for (const n of input().snapshot.networks) {
          const v = field(n);
          if (v !== undefined) this.set({ network: n.network }, v);
        }
      },
    });
  }
  const validatorGauges: Array<[string, string, (v: NonNullable<NetworkView['validators']>['list'][number]) => number | undefined]> = [
    ['ledger_validator_stake_tokens', 'Stake of an active validator, in tokens.', (v) => v.stakeTokens],
    ['ledger_validator_weight', 'Weight of an active validator.', (v) => v.weight],
    ['ledger_validator_agent_score', 'Agent score of an active validator.', (v) => v.agentScore],
  ];
  for (const [name, help, field] of validatorGauges) {
    new Gauge({
      name,
      help,
      labelNames: ['network', 'validator'],
      registers,
      collect() {
        this.reset();
        for (const n of input().snapshot.networks) {
          for (const v of n.validators?.list ?? []) {
            const x = field(v);
            if (x !== undefined) this.set({ network: n.network, validator: v.address }, x);
          }
        }
      },
    });
  }

  new Gauge({ name: 'ledger_exporter_build_info', help: 'Exporter build. Always 1.', labelNames: ['version'], registers }).set(
    { version: opts.version },
    1,
  );
  new Counter({
    name: 'ledger_exporter_config_reloads_total',
    help: 'Configuration reloads by result (success, failure).',
    labelNames: ['result'],
    registers,
    collect() {
      this.reset();
      const c = input().counters.configReloads;
      this.inc({ result: 'success' }, c.success);
      this.inc({ result: 'failure' }, c.failure);
    },
  });
  new Counter({
    name: 'ledger_exporter_poll_overruns_total',
    help: 'Probe runs skipped because the previous run of the same probe was still in flight or queued.',
    labelNames: ['probe'],
    registers,
    collect() {
      this.reset();
      // From 0 for every probe, so the first overrun is an increase() that alerts can see.
      for (const probe of PROBE_NAMES) this.inc({ probe }, input().counters.pollOverruns.get(probe) ?? 0);
    },
  });

  for (const ext of opts.extensions ?? []) ext(registry);
  if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  return registry;
}

export class MetricsView {
  private readonly text: Registry;
  private readonly openMetrics: Registry;
  private current: ScrapeInput | undefined;
  /** Scrapes are serialised: collectors share `current`. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    opts: MetricsViewOptions,
    private readonly inputs: () => ScrapeInput,
    private readonly renderUpstream: (sources: Iterable<PreparedUpstream>, openMetrics: boolean) => string,
  ) {
    const input = () => {
      if (!this.current) throw new Error('collect outside a scrape');
      return this.current;
    };
    this.text = buildRegistry(TEXT_CONTENT_TYPE, opts, input);
    this.openMetrics = buildRegistry(OPENMETRICS_CONTENT_TYPE, opts, input);
  }

  /** Renders our metrics and the re-exposed upstream families in the requested format. */
  render(format: 'text' | 'openmetrics'): Promise<{ contentType: string; body: string }> {
    const run = this.queue.then(() => this.renderNow(format));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async renderNow(format: 'text' | 'openmetrics'): Promise<{ contentType: string; body: string }> {
    this.current = this.inputs();
    try {
      const om = format === 'openmetrics';
      const registry = om ? this.openMetrics : this.text;
      let body = await registry.metrics();
      const upstream = this.renderUpstream(this.current.upstream, om);
      if (om) body = body.replace(/# EOF\n$/, '') + upstream + '# EOF\n';
      else body = body + upstream;
      return { contentType: registry.contentType, body };
    } finally {
      this.current = undefined;
    }
  }
}
