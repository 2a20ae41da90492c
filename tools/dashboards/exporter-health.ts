// Exporter self-health: is the exporter keeping up, writing evidence, reloading config, and
// is its Node.js process well?
import type * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import {
  EXPORTER_ONLY,
  NET_NODE,
  boolMapping,
  dashboardShell,
  finish,
  row,
  statPanel,
  tablePanel,
  timeSeriesPanel,
} from './common.js';

export const EXPORTER_HEALTH_UID = 'ledger-exporter-health';

export function exporterHealth(): dashboard.Dashboard {
  const b = dashboardShell({
    uid: EXPORTER_HEALTH_UID,
    title: 'Ledger fleet / Exporter self-health',
    description:
      'Poll overruns, probe durations, evidence writing, config reloads, the agent platform check and the ' +
      'exporter process itself.',
    nodeSelection: 'multi',
  })
    .withRow(row('Exporter'))
    .withPanel(
      tablePanel({
        title: 'Exporter build',
        description: 'Running exporter instances and their version (ledger_exporter_build_info).',
        unit: 'none',
        queries: [{ expr: 'ledger_exporter_build_info' }],
        hideColumns: ['Value'],
        width: 8,
        height: 5,
      }),
    )
    .withPanel(
      statPanel({
        title: 'Agent platform',
        description:
          'Whether the agent platform answered its last check (ledger_agent_platform_up). Only present when ' +
          'agentPlatform is configured.',
        unit: 'none',
        queries: [{ expr: 'max(ledger_agent_platform_up)' }],
        mappings: boolMapping(['DOWN', 'red'], ['up', 'green']),
        width: 4,
        height: 5,
      }),
    )
    .withPanel(
      statPanel({
        title: 'Agent API key',
        description: 'Whether the agent platform accepted the configured API key (ledger_agent_platform_key_valid).',
        unit: 'none',
        queries: [{ expr: 'min(ledger_agent_platform_key_valid)' }],
        mappings: boolMapping(['REJECTED', 'red'], ['valid', 'green']),
        width: 4,
        height: 5,
      }),
    )
    .withPanel(
      statPanel({
        title: 'Evidence on disk',
        description: 'Bytes held in the evidence directory (ledger_evidence_bytes). Bounded by evidence.maxBytes.',
        unit: 'bytes',
        queries: [{ expr: 'sum(ledger_evidence_bytes)' }],
        thresholds: [[null, 'blue']],
        width: 4,
        height: 5,
      }),
    )
    .withPanel(
      statPanel({
        title: 'Uptime',
        description: 'Time since the exporter process started (process_start_time_seconds).',
        unit: 's',
        queries: [{ expr: `time() - (process_start_time_seconds ${EXPORTER_ONLY})`, legend: '{{instance}}' }],
        thresholds: [[null, 'blue']],
        width: 4,
        height: 5,
      }),
    )
    .withRow(row('Polling'))
    .withPanel(
      timeSeriesPanel({
        title: 'Poll overruns',
        description:
          'Probe runs skipped because the previous run of the same probe was still in flight ' +
          '(ledger_exporter_poll_overruns_total). Raise the interval or the timeout budget if this is not zero.',
        unit: 'ops',
        min: 0,
        queries: [
          { expr: 'sum by (probe) (rate(ledger_exporter_poll_overruns_total[$__rate_interval]))', legend: '{{probe}}' },
        ],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Probe duration (slowest node)',
        description: 'Longest last-run duration of each probe over the selected nodes (ledger_probe_duration_seconds).',
        unit: 's',
        min: 0,
        queries: [{ expr: `max by (probe) (ledger_probe_duration_seconds{${NET_NODE}})`, legend: '{{probe}}' }],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Probe duration (average)',
        description: 'Average last-run duration of each probe over the selected nodes (ledger_probe_duration_seconds).',
        unit: 's',
        min: 0,
        queries: [{ expr: `avg by (probe) (ledger_probe_duration_seconds{${NET_NODE}})`, legend: '{{probe}}' }],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Probe failures',
        description:
          'Failed probe requests per probe and reason over the selected nodes (ledger_probe_failures_total).',
        unit: 'reqps',
        min: 0,
        queries: [
          {
            expr: `sum by (probe, reason) (rate(ledger_probe_failures_total{${NET_NODE}}[$__rate_interval]))`,
            legend: '{{probe}} {{reason}}',
          },
        ],
      }),
    )
    .withRow(row('Evidence and configuration'))
    .withPanel(
      timeSeriesPanel({
        title: 'Evidence records and drops',
        description:
          'Evidence records written per node (ledger_evidence_records_total), records dropped to stay within ' +
          'bounds (ledger_evidence_dropped_total) and write errors (ledger_evidence_write_errors_total).',
        unit: 'ops',
        min: 0,
        queries: [
          {
            expr: 'sum by (node) (rate(ledger_evidence_records_total{node=~"$node"}[$__rate_interval]))',
            legend: 'written {{node}}',
          },
          { expr: 'sum(rate(ledger_evidence_dropped_total[$__rate_interval]))', legend: 'dropped' },
          { expr: 'sum(rate(ledger_evidence_write_errors_total[$__rate_interval]))', legend: 'write errors' },
        ],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Evidence directory size',
        description: 'Bytes held in the evidence directory (ledger_evidence_bytes).',
        unit: 'bytes',
        min: 0,
        queries: [{ expr: 'ledger_evidence_bytes', legend: '{{instance}}' }],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Config reloads',
        description:
          'Configuration reloads by result (ledger_exporter_config_reloads_total). A failed reload keeps the ' +
          'previous configuration running.',
        unit: 'short',
        min: 0,
        queries: [
          {
            expr: 'sum by (result) (increase(ledger_exporter_config_reloads_total[$__rate_interval]))',
            legend: '{{result}}',
          },
        ],
        width: 24,
      }),
    )
    .withRow(row('Process'))
    .withPanel(
      timeSeriesPanel({
        title: 'CPU',
        description: 'CPU time used per second by the exporter process, 1.0 = one core (process_cpu_seconds_total).',
        unit: 'percentunit',
        min: 0,
        queries: [
          { expr: `rate(process_cpu_seconds_total[$__rate_interval]) ${EXPORTER_ONLY}`, legend: '{{instance}}' },
        ],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Memory',
        description:
          'Resident memory and V8 heap of the exporter process (process_resident_memory_bytes, ' +
          'nodejs_heap_size_used_bytes, nodejs_heap_size_total_bytes).',
        unit: 'bytes',
        min: 0,
        queries: [
          { expr: `process_resident_memory_bytes ${EXPORTER_ONLY}`, legend: 'resident {{instance}}' },
          { expr: `nodejs_heap_size_used_bytes ${EXPORTER_ONLY}`, legend: 'heap used {{instance}}' },
          { expr: `nodejs_heap_size_total_bytes ${EXPORTER_ONLY}`, legend: 'heap total {{instance}}' },
        ],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Event loop lag',
        description:
          'Event loop lag of the exporter process, p99 and mean (nodejs_eventloop_lag_p99_seconds, ' +
          'nodejs_eventloop_lag_mean_seconds). Sustained lag delays probes and scrapes.',
        unit: 's',
        min: 0,
        queries: [
          { expr: `nodejs_eventloop_lag_p99_seconds ${EXPORTER_ONLY}`, legend: 'p99 {{instance}}' },
          { expr: `nodejs_eventloop_lag_mean_seconds ${EXPORTER_ONLY}`, legend: 'mean {{instance}}' },
        ],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Garbage collection',
        description: 'Time spent in garbage collection per second, by kind (nodejs_gc_duration_seconds).',
        unit: 'percentunit',
        min: 0,
        queries: [
          {
            expr: `sum by (instance, kind) (rate(nodejs_gc_duration_seconds_sum[$__rate_interval]) ${EXPORTER_ONLY})`,
            legend: '{{kind}} {{instance}}',
          },
        ],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Open file descriptors',
        description:
          'Open file descriptors against the limit (process_open_fds, process_max_fds). Each node connection ' +
          'holds one.',
        unit: 'none',
        min: 0,
        queries: [
          { expr: `process_open_fds ${EXPORTER_ONLY}`, legend: 'open {{instance}}' },
          { expr: `process_max_fds ${EXPORTER_ONLY}`, legend: 'max {{instance}}' },
        ],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Active handles',
        description:
          'Active libuv handles (sockets, timers) of the exporter process (nodejs_active_handles_total). Steady ' +
          'growth means a leak.',
        unit: 'none',
        min: 0,
        queries: [{ expr: `nodejs_active_handles_total ${EXPORTER_ONLY}`, legend: '{{instance}}' }],
      }),
    );
  return finish(b);
}
