// Fleet-wide values computed by Prometheus from per-node series, so they are the same whether one
// exporter polls the whole fleet or several shards poll a part each (and HA twins poll the same
// part: every per-node series is first reduced `by (node, network)`, which drops `instance`).
// Each rule reproduces the single exporter's per-network gauge of the same meaning.

export interface RecordingRule {
  record: string;
  expr: string;
  /** Which exporter gauge it replaces, and how it is computed; a comment in the file. */
  comment: string;
}

/**
 * One sample per node, whichever replicas report it: only the node's identity labels stay (the
 * labels the built-in engine gives a node's alerts), so HA twins count, and alert, once.
 */
export function perNode(expr: string): string {
  if (!expr.includes('\n')) return `max by (node, network) (${expr})`;
  return `max by (node, network) (\n${expr
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n')}\n)`;
}
const UP_NODES = `on (node, network) ${perNode('ledger_node_up')} == 1`;
/** Distinct validator addresses per network over every shard (each exposes its highest node's set). */
const VALIDATOR_UNION = 'count by (network) (count by (network, validator) (ledger_validator_stake_tokens))';

/** Names of the recorded series, for the alert definitions and dashboards that read them. */
export const RECORDED = {
  nodes: 'network:ledger_fleet_nodes:count',
  nodesUp: 'network:ledger_fleet_nodes_up:sum',
  heightMax: 'network:ledger_node_block_height:max',
  heightMin: 'network:ledger_node_block_height:min',
  lagBlocks: 'node:ledger_node_height_lag_blocks:fleet',
  versions: 'network:ledger_fleet_versions:count',
  validatorsActive: 'network:ledger_validators_active:max',
  validatorSetMismatch: 'network:ledger_fleet_validator_set_mismatch:max',
  minersActive: 'network:ledger_mining_miners_active:max',
  blocksUntilUpgrade: 'network:ledger_mining_blocks_until_upgrade:min',
} as const;

export const RECORDING_GROUP = 'ledger-fleet-recording';

export const RECORDING_RULES: readonly RecordingRule[] = [
  {
    record: RECORDED.nodes,
    comment: 'ledger_fleet_nodes: configured nodes (every configured node has ledger_node_up).',
    expr: `count by (network) (${perNode('ledger_node_up')})`,
  },
  {
    record: RECORDED.nodesUp,
    comment: 'ledger_fleet_nodes_up: nodes up.',
    expr: `sum by (network) (${perNode('ledger_node_up')})`,
  },
  {
    record: RECORDED.heightMax,
    comment: 'ledger_fleet_block_height_max: highest height over nodes up (only nodes up expose a height).',
    expr: `max by (network) (${perNode('ledger_node_block_height')})`,
  },
  {
    record: RECORDED.heightMin,
    comment: 'ledger_fleet_block_height_min: lowest height over nodes up.',
    expr: `min by (network) (${perNode('ledger_node_block_height')})`,
  },
  {
    record: RECORDED.lagBlocks,
    comment: "ledger_node_height_lag_blocks: highest height in the network minus the node's height, across all shards.",
    expr: `${RECORDED.heightMax}\n  - on (network) group_right ${perNode('ledger_node_block_height')}`,
  },
  {
    record: RECORDED.versions,
    comment: 'ledger_fleet_versions: distinct versions over nodes up that report one.',
    expr: `count by (network) (\n  count by (network, version) (ledger_node_info{version!=""} and ${UP_NODES})\n)`,
  },
  {
    record: RECORDED.validatorsActive,
    comment: "ledger_validators_active: every shard reports the chain's set; the largest view wins.",
    expr: 'max by (network) (ledger_validators_active)',
  },
  {
    record: RECORDED.validatorSetMismatch,
    comment:
      'ledger_fleet_validator_set_mismatch: 1 when the nodes of one shard disagree (each exporter\n' +
      'compares the sets), or when a node up reports fewer or more validators than the union of the\n' +
      'addresses every shard exposes (ledger_validator_*{validator}): a set of the same size with\n' +
      'other members makes the union larger than it.',
    expr:
      'max by (network) (\n' +
      '  label_replace(max by (network) (ledger_fleet_validator_set_mismatch), "source", "shard", "", "")\n' +
      '  or label_replace(\n' +
      '    max by (network) (\n' +
      `      ${VALIDATOR_UNION}\n` +
      '        != bool on (network) group_right ()\n' +
      `      (${perNode('ledger_node_validators')} and ${UP_NODES})\n` +
      '    ),\n' +
      '    "source", "fleet", "", "")\n' +
      ')',
  },
  {
    record: RECORDED.minersActive,
    comment: "ledger_mining_miners_active: every shard reports the chain's count; the largest view wins.",
    expr: 'max by (network) (ledger_mining_miners_active)',
  },
  {
    record: RECORDED.blocksUntilUpgrade,
    comment: 'ledger_mining_blocks_until_upgrade: counted from the highest node, so the smallest view wins.',
    expr: 'min by (network) (ledger_mining_blocks_until_upgrade)',
  },
];

const HEADER = `# Prometheus recording rules for ledger-fleet-exporter: fleet-wide values from per-node series.
# GENERATED from src/recording/rules.ts by \`npm run alert-rules\`: edit the source, not this file.
#
# With one exporter these equal its per-network gauges (ledger_fleet_*); with several shards
# (--shard i --total-shards n) or HA twins they are the only correct fleet-wide values, so the
# alert rules and dashboards read them. Load this file beside ledger-fleet-exporter.rules.yml.
# Tested with promtool: alerts/tests/recording.test.yml.
`;

export function renderRecordingFile(rules: readonly RecordingRule[] = RECORDING_RULES): string {
  return `${[HEADER, 'groups:'].join('\n')}\n${renderRecordingGroup(rules)}`;
}

/** The recording group alone (its `- name:` entry under `groups:`), to append to another rules file. */
export function renderRecordingGroup(rules: readonly RecordingRule[] = RECORDING_RULES): string {
  const out = [`  - name: ${RECORDING_GROUP}`, '    rules:'];
  for (const rule of rules) {
    for (const c of rule.comment.split('\n')) out.push(`      # ${c}`);
    out.push(`      - record: ${rule.record}`);
    if (rule.expr.includes('\n')) out.push('        expr: |', ...rule.expr.split('\n').map((l) => `          ${l}`));
    else out.push(`        expr: ${rule.expr}`);
  }
  return `${out.join('\n')}\n`;
}
