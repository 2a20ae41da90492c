// The replicas of a sharded fleet against each other (contract "Scale-out"). Only Prometheus sees
// every replica, so the built-in engine has no evaluation for it.
import { durationWords } from '../format.js';
import type { AlertDefinition } from '../types.js';

export const SHARDING_ALERTS: AlertDefinition[] = [
  {
    name: 'LedgerExporterShardingMismatch',
    group: 'ledger-fleet-exporter',
    scope: 'exporter',
    comment:
      'Replicas of one job disagree on --total-shards, or fewer distinct shards report than the\n' +
      'total they were given: part of the fleet is polled twice or not at all.',
    defaults: { severity: 'warning', forMs: 300_000, keepFiringForMs: 300_000 },
    promql: () =>
      'count by (job) (count by (job, total_shards) (ledger_exporter_shard)) > 1\n' +
      '  or\n' +
      'max by (job) (ledger_exporter_total_shards)\n' +
      '  > count by (job) (count by (job, shard) (ledger_exporter_shard))',
    summary: () => 'Exporter shards of job {{ $labels.job }} do not cover the fleet',
    description: (p) =>
      `The exporter replicas of job {{ $labels.job }} disagree on the number of shards, or some of their shards ` +
      `report no metrics, for more than ${durationWords(p.forMs)}: some nodes are polled twice or not at all.`,
  },
];
