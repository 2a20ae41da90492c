// The per-node and per-network families of /metrics, in output order: the families that come
// from several probes are defined here, each probe's own families come from its module
// (src/probes/). A layout is that order for one probe table, with each family's header
// lines in both formats written once.
import { FAILURE_REASONS, type FailureReason, type NetworkView, type NodeView, type ProbeView } from '../domain.js';
import { escapeHelpOpenMetrics, escapeHelpText } from '../exposition/grammar.js';
import type { EntityFamily, NodeProbe } from '../probes/types.js';

interface Headers {
  name: string;
  /** HELP and TYPE lines, format 0.0.4. */
  text: string;
  /** HELP and TYPE lines, OpenMetrics (a counter family is named without `_total`). */
  openMetrics: string;
}

/**
 * A per-node family: its lines are kept per node (fleetColumns.ts); lag and backoff change without a new node revision.
 */
export type FleetFamily = Headers &
  (
    | { kind: 'node'; value(n: NodeView): number | undefined }
    | { kind: 'info' }
    | {
        kind: 'probe';
        value(p: ProbeView): number | undefined;
        /** The value is a monotonic time (s): written as its wall time, a Unix timestamp. */
        wallTime?: boolean;
      }
    | { kind: 'failures'; reasons: Array<[FailureReason, boolean]> }
    | { kind: 'lag' }
    | { kind: 'backoff' }
  );

export type NetworkFamily = Headers &
  ({ per: 'network'; value(n: NetworkView): number | undefined } | Omit<EntityFamily<unknown>, 'name' | 'help'>);

export interface FleetLayout {
  /** Per-node families in output order. */
  nodeFamilies: FleetFamily[];
  /** Indexes of the height-lag and backoff families in nodeFamilies. */
  lagSlot: number;
  backoffSlot: number;
  /** Per-network and per-entity families, in output order. */
  networkFamilies: NetworkFamily[];
}

const NODE_GAUGES: Array<[string, string, (n: NodeView) => number | undefined]> = [
  [
    'ledger_node_up',
    'Whether the node answered its last health or blockNumber probe with a valid answer (1) or not (0).',
    (n) => (n.up ? 1 : 0),
  ],
  ['ledger_node_block_height', 'Block height of the node, from /health, else from blockNumber.', (n) => n.height],
  [
    'ledger_node_tls_cert_expiry_timestamp_seconds',
    'Unix time when the earliest certificate of the chain the node was verified through expires (the leaf, ' +
      'intermediates and trusted root; https nodes, from the connection the probes use, re-read daily).',
    (n) => n.values?.tlsCertExpirySeconds,
  ],
];
const LAG: [string, string] = [
  'ledger_node_height_lag_blocks',
  "Highest height in the node's network minus this node's height.",
];
const INFO: [string, string] = [
  'ledger_node_info',
  'Node identity: version, chain id, RPC namespace and configured labels. Always 1.',
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
  [
    'ledger_probe_success',
    'Whether the last run of the probe succeeded (1) or not (0); absent while the node does not offer the method.',
    (p) => (p.success === undefined || !p.supported ? undefined : p.success ? 1 : 0),
  ],
  ['ledger_probe_duration_seconds', 'Duration of the last run of the probe.', (p) => p.durationSeconds],
  [
    'ledger_probe_last_success_timestamp_seconds',
    'Unix time of the last successful run of the probe.',
    (p) => p.lastSuccessSeconds,
  ],
  [
    'ledger_probe_supported',
    'Whether the node offers the probed method (0 on earlier node builds).',
    (p) => (p.supported ? 1 : 0),
  ],
];
const BACKOFF: [string, string] = [
  'ledger_probe_backoff',
  'Whether the probe is polled at a reduced rate after consecutive failures (1) or not (0).',
];
const CONSECUTIVE: [string, string, (p: ProbeView) => number | undefined] = [
  'ledger_probe_consecutive_failures',
  'Failures of the probe in a row.',
  (p) => p.consecutiveFailures,
];
const FAILURES: [string, string] = [
  'ledger_probe_failures_total',
  'Failed probe runs by reason: timeout, connect, http_5xx, http_4xx, invalid_response, rpc_error.',
];

/** The names of the families written here rather than by a probe module. */
export const SHARED_FAMILIES: readonly string[] = [
  ...NODE_GAUGES.map(([name]) => name),
  LAG[0],
  INFO[0],
  ...PROBE_GAUGES.map(([name]) => name),
  BACKOFF[0],
  CONSECUTIVE[0],
  FAILURES[0],
  ...NETWORK_GAUGES.map(([name]) => name),
];

function headers(name: string, type: 'gauge' | 'counter', help: string): Headers {
  const om = type === 'counter' ? name.replace(/_total$/, '') : name;
  return {
    name,
    text: `# HELP ${name} ${escapeHelpText(help)}\n# TYPE ${name} ${type}\n`,
    openMetrics: `# HELP ${om} ${escapeHelpOpenMetrics(help)}\n# TYPE ${om} ${type}\n`,
  };
}

const NO_VALUES = { upstreamVersion: 0 };

export function fleetLayout(probes: readonly NodeProbe[]): FleetLayout {
  const families = probes.flatMap((d) => d.metrics);
  const gauge = (name: string, help: string) => headers(name, 'gauge', help);
  const nodeFamilies: FleetFamily[] = [
    ...NODE_GAUGES.map(([name, help, value]): FleetFamily => ({ ...gauge(name, help), kind: 'node', value })),
    { ...gauge(...LAG), kind: 'lag' },
    ...families.flatMap((f): FleetFamily[] =>
      f.per === 'node'
        ? [{ ...gauge(f.name, f.help), kind: 'node', value: (n) => f.value(n.values ?? NO_VALUES, n) }]
        : [],
    ),
    { ...gauge(...INFO), kind: 'info' },
    ...PROBE_GAUGES.map(([name, help, value]): FleetFamily => ({
      ...gauge(name, help),
      kind: 'probe',
      value,
      ...(name.endsWith('_timestamp_seconds') && { wallTime: true }),
    })),
    { ...gauge(...BACKOFF), kind: 'backoff' },
    { ...gauge(CONSECUTIVE[0], CONSECUTIVE[1]), kind: 'probe', value: CONSECUTIVE[2] },
    // http_5xx from 0 (alerts take increase() of it, which must see the first failure); other
    // reasons from their first occurrence: 25,000 fewer series per 1,000 nodes.
    {
      ...headers(FAILURES[0], 'counter', FAILURES[1]),
      kind: 'failures',
      reasons: FAILURE_REASONS.map((r) => [r, r === 'http_5xx']),
    },
  ];
  const networkFamilies: NetworkFamily[] = [
    ...NETWORK_GAUGES.map(([name, help, value]): NetworkFamily => ({ ...gauge(name, help), per: 'network', value })),
    ...families.flatMap((f): NetworkFamily[] => (f.per === 'node' ? [] : [{ ...f, ...gauge(f.name, f.help) }])),
  ];
  return {
    nodeFamilies,
    lagSlot: nodeFamilies.findIndex((f) => f.kind === 'lag'),
    backoffSlot: nodeFamilies.findIndex((f) => f.kind === 'backoff'),
    networkFamilies,
  };
}
