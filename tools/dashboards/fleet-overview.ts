// Fleet overview: is every network healthy, in sync, on one version, and free of server errors?
import type * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import {
  NET,
  NET_NODE,
  TARGET_LABELS,
  boolMapping,
  perNode,
  dashboardShell,
  finish,
  row,
  stateTimelinePanel,
  statPanel,
  tablePanel,
  timeSeriesPanel,
} from './common.js';

export const FLEET_OVERVIEW_UID = 'ledger-fleet-overview';

export function fleetOverview(): dashboard.Dashboard {
  const b = dashboardShell({
    uid: FLEET_OVERVIEW_UID,
    title: 'Ledger fleet / Overview',
    description: 'Nodes up by network, block heights and lag, node versions, server errors and the evidence they left.',
    nodeSelection: 'multi',
  })
    .withRow(row('Fleet'))
    .withPanel(
      statPanel({
        title: 'Nodes up',
        description:
          'Nodes that answered their last health or blockNumber probe, per network, over all exporter shards ' +
          '(recording rule network:ledger_fleet_nodes_up:sum).',
        unit: 'none',
        queries: [{ expr: `sum by (network) (network:ledger_fleet_nodes_up:sum{${NET}})`, legend: '{{network}}' }],
        thresholds: [[null, 'green']],
      }),
    )
    .withPanel(
      statPanel({
        title: 'Nodes down',
        description:
          'Configured nodes minus nodes up, per network. Anything above zero deserves a look at the node detail ' +
          'dashboard.',
        unit: 'none',
        queries: [
          {
            expr:
              `sum by (network) (network:ledger_fleet_nodes:count{${NET}} - ` +
              `network:ledger_fleet_nodes_up:sum{${NET}})`,
            legend: '{{network}}',
          },
        ],
        thresholds: [
          [null, 'green'],
          [1, 'red'],
        ],
      }),
    )
    .withPanel(
      statPanel({
        title: 'Configured nodes',
        description:
          'Nodes in the exporter configuration, per network, over all shards (recording rule ' +
          'network:ledger_fleet_nodes:count).',
        unit: 'none',
        queries: [{ expr: `sum by (network) (network:ledger_fleet_nodes:count{${NET}})`, legend: '{{network}}' }],
        thresholds: [[null, 'blue']],
      }),
    )
    .withPanel(
      statPanel({
        title: 'Distinct versions',
        description:
          'Number of distinct node versions running per network (recording rule ' +
          'network:ledger_fleet_versions:count). More than one means an upgrade is in progress or stuck.',
        unit: 'none',
        queries: [{ expr: `max by (network) (network:ledger_fleet_versions:count{${NET}})`, legend: '{{network}}' }],
        thresholds: [
          [null, 'green'],
          [2, 'orange'],
        ],
      }),
    )
    .withPanel(
      statPanel({
        title: 'Validator set',
        description:
          'Whether the nodes up agree on the active validator set (recording rule ' +
          'network:ledger_fleet_validator_set_mismatch:max).',
        unit: 'none',
        queries: [
          { expr: `max by (network) (network:ledger_fleet_validator_set_mismatch:max{${NET}})`, legend: '{{network}}' },
        ],
        mappings: boolMapping(['agree', 'green'], ['MISMATCH', 'red']),
      }),
    )
    .withPanel(
      statPanel({
        title: 'Max height lag',
        description:
          'Largest lag of any selected node behind the highest node of its network, in blocks, across all shards ' +
          '(recording rule node:ledger_node_height_lag_blocks:fleet).',
        unit: 'suffix: blocks',
        queries: [
          { expr: `max by (network) (node:ledger_node_height_lag_blocks:fleet{${NET_NODE}})`, legend: '{{network}}' },
        ],
        thresholds: [
          [null, 'green'],
          [5, 'orange'],
          [20, 'red'],
        ],
      }),
    )
    .withPanel(
      stateTimelinePanel({
        title: 'Node up',
        description:
          'Per node: 1 when the node answered its last health or blockNumber probe with a valid answer ' +
          '(ledger_node_up).',
        unit: 'none',
        queries: [{ expr: perNode(`ledger_node_up{${NET_NODE}}`), legend: '{{network}} / {{node}}' }],
        mappings: boolMapping(['down', 'red'], ['up', 'green']),
        height: 7,
      }),
    )
    .withRow(row('Heights and lag'))
    .withPanel(
      timeSeriesPanel({
        title: 'Fleet block height',
        description:
          'Highest and lowest block height over the nodes up of each network. The two lines should move ' +
          'together, one block about every 3 s.',
        unit: 'none',
        queries: [
          { expr: `max by (network) (network:ledger_node_block_height:max{${NET}})`, legend: '{{network}} max' },
          { expr: `min by (network) (network:ledger_node_block_height:min{${NET}})`, legend: '{{network}} min' },
        ],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Height lag by node',
        description:
          'Blocks each node is behind the highest node of its network, across all shards (recording rule ' +
          'node:ledger_node_height_lag_blocks:fleet).',
        unit: 'suffix: blocks',
        min: 0,
        queries: [{ expr: `node:ledger_node_height_lag_blocks:fleet{${NET_NODE}}`, legend: '{{node}}' }],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Last block age',
        description:
          'Seconds since each node last saw a block, from its /health (ledger_node_last_block_age_seconds). ' +
          'Nodes report "degraded" at 60 s.',
        unit: 's',
        min: 0,
        queries: [{ expr: perNode(`ledger_node_last_block_age_seconds{${NET_NODE}}`), legend: '{{node}}' }],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Block production rate',
        description:
          "Blocks per second seen by the fastest node of each network, from the nodes' own blocks_total counter " +
          '(ledger_upstream_blocks_total). About 0.33 at a 3 s block time.',
        unit: 'suffix: blocks/s',
        min: 0,
        queries: [
          {
            expr: `max by (network) (rate(ledger_upstream_blocks_total{${NET_NODE}}[$__rate_interval]))`,
            legend: '{{network}}',
          },
        ],
      }),
    )
    .withRow(row('Versions'))
    .withPanel(
      timeSeriesPanel({
        title: 'Nodes by version',
        description: 'How many selected nodes run each version (ledger_node_info). Useful to follow a rolling upgrade.',
        unit: 'none',
        min: 0,
        queries: [
          {
            expr: `count by (network, version) (${perNode(`ledger_node_info{${NET_NODE}}`, ['version'])})`,
            legend: '{{network}} {{version}}',
          },
        ],
      }),
    )
    .withPanel(
      tablePanel({
        title: 'Node versions',
        description: 'Version, chain id and RPC namespace each node reports (labels of ledger_node_info).',
        unit: 'none',
        queries: [{ expr: `max without (${TARGET_LABELS}) (ledger_node_info{${NET_NODE}})` }],
        hideColumns: ['Value'],
      }),
    )
    .withRow(row('Server errors and evidence'))
    .withPanel(
      timeSeriesPanel({
        title: 'HTTP 5xx answers',
        description:
          'Probe requests answered with a 5xx status (ledger_probe_failures_total{reason="http_5xx"}), per node. ' +
          'Each one leaves an evidence record.',
        unit: 'reqps',
        min: 0,
        queries: [
          {
            expr: perNode(
              `sum without (probe, reason) (rate(ledger_probe_failures_total{${NET_NODE}, ` +
                `reason="http_5xx"}[$__rate_interval]))`,
            ),
            legend: '{{network}} / {{node}}',
          },
        ],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Probe failures by reason',
        description:
          'Failed probe requests of the selected nodes by reason: timeout, connect, http_5xx, http_4xx, ' +
          'invalid_response, rpc_error (ledger_probe_failures_total).',
        unit: 'reqps',
        min: 0,
        queries: [
          {
            expr:
              `sum by (reason) ` +
              `(${perNode(`rate(ledger_probe_failures_total{${NET_NODE}}[$__rate_interval])`, ['probe', 'reason'])})`,
            legend: '{{reason}}',
          },
        ],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Evidence records written',
        description:
          'Evidence records (one per 5xx answer) appended per second, per node (ledger_evidence_records_total). ' +
          'Read them at /api/evidence?node=<name>.',
        unit: 'ops',
        min: 0,
        queries: [
          {
            expr: `max by (node) (rate(ledger_evidence_records_total{node=~"$node"}[$__rate_interval]))`,
            legend: '{{node}}',
          },
        ],
      }),
    );
  return finish(b);
}
