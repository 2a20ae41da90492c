// When a family has series, in words: what the code does, stated once for the metrics page.
// A family not named here gets its group's rule (see metricCatalogue.ts); test/tools/docs.unit.test.ts fails
// when a name here is no longer declared anywhere.

/** Per-node and per-network families whose presence differs from their group's rule. */
export const FLEET_PRESENCE: Readonly<Record<string, string>> = {
  ledger_node_up: 'Always, for every polled node: 0 until its health or blockNumber probe gets a valid answer.',
  ledger_node_info: 'Always, for every polled node (value 1); labels the node has not reported are empty.',
  ledger_node_block_height: 'Absent until /health or blockNumber gave a height, and again after both fail.',
  ledger_node_height_lag_blocks: 'Absent while the node has no height.',
  ledger_probe_success:
    'One series per probe the node runs; absent while the node does not offer the method (see ' +
    'ledger_probe_supported).',
  ledger_probe_duration_seconds: 'One series per probe the node runs, from its first run.',
  ledger_probe_last_success_timestamp_seconds: 'One series per probe the node runs, from its first success.',
  ledger_probe_failures_total: 'reason="http_5xx" from 0 for every probe; other reasons from their first occurrence.',
  ledger_node_tls_cert_expiry_timestamp_seconds: 'Only for https nodes, from the first connection the probes made.',
  ledger_fleet_nodes: 'One series per network with configured nodes.',
  ledger_fleet_nodes_up: 'One series per network with configured nodes.',
};

/** The exporter's own families, by the part that registers them (metricCatalogue's sources). */
export const REGISTRY_SOURCES: Readonly<Record<string, string>> = {
  exporter: 'Always.',
  'metrics probe': 'One series per node (dropped samples: per reason, only while above 0).',
  evidence: 'Always (the evidence store runs in every exporter); records from 0 for every configured node.',
  agentPlatform: 'Only with `agentPlatform:` configured; `key_valid` and `info` after the first verdict on the key.',
  alerting: 'Only with `alerting:` configured (samples per alert, receiver or window).',
  heartbeat: 'Always; 0 until a ping was accepted, and without `alerting.heartbeat`.',
  sharding: 'Always when run with `--config` (shard 0 of 1 without sharding).',
  process: "Always (prom-client's default metrics, Linux values where the platform has them).",
};
