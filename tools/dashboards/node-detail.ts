// Node detail: everything the exporter knows about one node, including its own /metrics.
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
  statPanel,
  tablePanel,
  timeSeriesPanel,
} from './common.js';

export const NODE_DETAIL_UID = 'ledger-node-detail';

export function nodeDetail(): dashboard.Dashboard {
  const b = dashboardShell({
    uid: NODE_DETAIL_UID,
    title: 'Ledger fleet / Node detail',
    description:
      'One node: health, height, peers, probe latency and failures by reason, and the metrics the node exposes ' +
      'itself (ledger_upstream_*).',
    nodeSelection: 'single',
  })
    .withRow(row('Health'))
    .withPanel(
      statPanel({
        title: 'Up',
        description:
          'Whether the node answered its last health or blockNumber probe with a valid answer (ledger_node_up).',
        unit: 'none',
        queries: [{ expr: perNode(`ledger_node_up{${NET_NODE}}`), legend: '{{node}}' }],
        mappings: boolMapping(['DOWN', 'red'], ['UP', 'green']),
        width: 3,
      }),
    )
    .withPanel(
      statPanel({
        title: 'Healthy',
        description:
          'Whether /health said status "ok" (ledger_node_healthy). A node can answer 200 and still be degraded.',
        unit: 'none',
        queries: [{ expr: perNode(`ledger_node_healthy{${NET_NODE}}`), legend: '{{node}}' }],
        mappings: boolMapping(['DEGRADED', 'orange'], ['OK', 'green']),
        width: 3,
      }),
    )
    .withPanel(
      statPanel({
        title: 'Height',
        description: 'Block height from /health, else from blockNumber (ledger_node_block_height).',
        unit: 'none',
        queries: [{ expr: perNode(`ledger_node_block_height{${NET_NODE}}`), legend: '{{node}}' }],
        thresholds: [[null, 'blue']],
        width: 4,
      }),
    )
    .withPanel(
      statPanel({
        title: 'Lag behind fleet',
        description:
          'Highest height in the network minus this node’s height, across all shards (recording rule ' +
          'node:ledger_node_height_lag_blocks:fleet).',
        unit: 'suffix: blocks',
        queries: [{ expr: `node:ledger_node_height_lag_blocks:fleet{${NET_NODE}}`, legend: '{{node}}' }],
        thresholds: [
          [null, 'green'],
          [5, 'orange'],
          [20, 'red'],
        ],
        width: 3,
      }),
    )
    .withPanel(
      statPanel({
        title: 'Peers',
        description: 'Peers the node is connected to, from /health (ledger_node_peers).',
        unit: 'none',
        queries: [{ expr: perNode(`ledger_node_peers{${NET_NODE}}`), legend: '{{node}}' }],
        thresholds: [
          [null, 'red'],
          [1, 'orange'],
          [3, 'green'],
        ],
        width: 3,
      }),
    )
    .withPanel(
      statPanel({
        title: 'Epoch',
        description: 'Current epoch, from /health (ledger_node_epoch).',
        unit: 'none',
        queries: [{ expr: perNode(`ledger_node_epoch{${NET_NODE}}`), legend: '{{node}}' }],
        thresholds: [[null, 'blue']],
        width: 4,
      }),
    )
    .withPanel(
      statPanel({
        title: 'Uptime',
        description: 'Node process uptime, from /health (ledger_node_uptime_seconds).',
        unit: 's',
        queries: [{ expr: perNode(`ledger_node_uptime_seconds{${NET_NODE}}`), legend: '{{node}}' }],
        thresholds: [[null, 'blue']],
        width: 4,
      }),
    )
    .withRow(row('Chain'))
    .withPanel(
      timeSeriesPanel({
        title: 'Block height vs fleet',
        description:
          'This node’s height against the highest height of its network (ledger_node_block_height, recording ' +
          'rule network:ledger_node_block_height:max).',
        unit: 'none',
        queries: [
          { expr: perNode(`ledger_node_block_height{${NET_NODE}}`), legend: '{{node}}' },
          { expr: `max(network:ledger_node_block_height:max{${NET}})`, legend: 'fleet max' },
        ],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Last block age',
        description: 'Seconds since the node last saw a block, from /health (ledger_node_last_block_age_seconds).',
        unit: 's',
        min: 0,
        queries: [{ expr: perNode(`ledger_node_last_block_age_seconds{${NET_NODE}}`), legend: '{{node}}' }],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Peers and mempool',
        description:
          'Connected peers and pending transactions, from /health (ledger_node_peers, ledger_node_mempool_size).',
        unit: 'none',
        min: 0,
        queries: [
          { expr: perNode(`ledger_node_peers{${NET_NODE}}`), legend: 'peers' },
          { expr: perNode(`ledger_node_mempool_size{${NET_NODE}}`), legend: 'mempool' },
        ],
      }),
    )
    .withPanel(
      tablePanel({
        title: 'Node info',
        description:
          'Labels the node reports: version, chain id, RPC namespace and the labels from the configuration ' +
          '(ledger_node_info).',
        unit: 'none',
        queries: [{ expr: `max without (${TARGET_LABELS}) (ledger_node_info{${NET_NODE}})` }],
        hideColumns: ['Value'],
      }),
    )
    .withRow(row('Probes'))
    .withPanel(
      timeSeriesPanel({
        title: 'Probe duration',
        description: 'Duration of the last run of each probe (ledger_probe_duration_seconds).',
        unit: 's',
        min: 0,
        queries: [{ expr: perNode(`ledger_probe_duration_seconds{${NET_NODE}}`, ['probe']), legend: '{{probe}}' }],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Probe failures by reason',
        description:
          'Failed probe requests per probe and reason: timeout, connect, http_5xx, http_4xx, invalid_response, ' +
          'rpc_error (ledger_probe_failures_total).',
        unit: 'reqps',
        min: 0,
        queries: [
          {
            expr: perNode(`rate(ledger_probe_failures_total{${NET_NODE}}[$__rate_interval])`, ['probe', 'reason']),
            legend: '{{probe}} {{reason}}',
          },
        ],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Time since last successful probe',
        description: 'Seconds since each probe last succeeded (now minus ledger_probe_last_success_timestamp_seconds).',
        unit: 's',
        min: 0,
        queries: [
          {
            expr: `time() - ${perNode(`ledger_probe_last_success_timestamp_seconds{${NET_NODE}}`, ['probe'])}`,
            legend: '{{probe}}',
          },
        ],
      }),
    )
    .withPanel(
      tablePanel({
        title: 'Probe status',
        description:
          'Per probe: last result (ledger_probe_success) and whether the node offers the method at all ' +
          '(ledger_probe_supported; 0 on earlier node builds).',
        unit: 'none',
        queries: [
          { expr: perNode(`ledger_probe_success{${NET_NODE}}`, ['probe']) },
          { expr: perNode(`ledger_probe_supported{${NET_NODE}}`, ['probe']) },
        ],
        hideColumns: ['network', 'node'],
        rename: { 'Value #A': 'success', 'Value #B': 'supported' },
        mappings: boolMapping(['no', 'red'], ['yes', 'green']),
      }),
    )
    .withRow(row('Upstream metrics (the node’s own /metrics)'))
    .withPanel(
      timeSeriesPanel({
        title: 'Blocks and transactions',
        description:
          'Blocks and transactions per second from the node’s own counters (ledger_upstream_blocks_total, ' +
          'ledger_upstream_transactions_total).',
        unit: 'ops',
        min: 0,
        queries: [
          { expr: perNode(`rate(ledger_upstream_blocks_total{${NET_NODE}}[$__rate_interval])`), legend: 'blocks/s' },
          {
            expr: perNode(`rate(ledger_upstream_transactions_total{${NET_NODE}}[$__rate_interval])`),
            legend: 'transactions/s',
          },
        ],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Block time',
        description:
          'Block time quantiles and mean from the node’s histogram (ledger_upstream_block_time_seconds). About 3 ' +
          's on this chain.',
        unit: 's',
        min: 0,
        queries: [
          {
            expr:
              `histogram_quantile(0.5, sum by (le) ` +
              `(${perNode(`rate(ledger_upstream_block_time_seconds_bucket{${NET_NODE}}[$__rate_interval])`, ['le'])}))`,
            legend: 'p50',
          },
          {
            expr:
              `histogram_quantile(0.9, sum by (le) ` +
              `(${perNode(`rate(ledger_upstream_block_time_seconds_bucket{${NET_NODE}}[$__rate_interval])`, ['le'])}))`,
            legend: 'p90',
          },
          {
            expr:
              `sum(${perNode(`rate(ledger_upstream_block_time_seconds_sum{${NET_NODE}}[$__rate_interval])`)}) / ` +
              `sum(${perNode(`rate(ledger_upstream_block_time_seconds_count{${NET_NODE}}[$__rate_interval])`)})`,
            legend: 'mean',
          },
        ],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Upstream peers and mempool',
        description:
          'Peers and mempool as the node’s own /metrics reports them (ledger_upstream_peers_connected, ' +
          'ledger_upstream_mempool_size).',
        unit: 'none',
        min: 0,
        queries: [
          { expr: perNode(`ledger_upstream_peers_connected{${NET_NODE}}`), legend: 'peers' },
          { expr: perNode(`ledger_upstream_mempool_size{${NET_NODE}}`), legend: 'mempool' },
        ],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Upstream height vs probed height',
        description:
          'Height from the node’s /metrics (ledger_upstream_block_height) against the height the exporter probed ' +
          '(ledger_node_block_height). They should match.',
        unit: 'none',
        queries: [
          { expr: perNode(`ledger_upstream_block_height{${NET_NODE}}`), legend: 'upstream' },
          { expr: perNode(`ledger_node_block_height{${NET_NODE}}`), legend: 'probed' },
        ],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Evidence records',
        description:
          'Evidence records written for this node (one per 5xx answer), per second ' +
          '(ledger_evidence_records_total). Read them at /api/evidence?node=<name>.',
        unit: 'ops',
        min: 0,
        queries: [
          {
            expr: `max by (node) (rate(ledger_evidence_records_total{node=~"$node"}[$__rate_interval]))`,
            legend: '{{node}}',
          },
        ],
        width: 24,
      }),
    );
  return finish(b);
}
