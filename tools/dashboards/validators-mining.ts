// Validators and mining: the chain-level view each network's highest node reports.
import type * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import {
  NET,
  NET_NODE,
  boolMapping,
  perNode,
  dashboardShell,
  finish,
  row,
  statPanel,
  tablePanel,
  timeSeriesPanel,
} from './common.js';

export const VALIDATORS_MINING_UID = 'ledger-validators-mining';

export function validatorsMining(): dashboard.Dashboard {
  const b = dashboardShell({
    uid: VALIDATORS_MINING_UID,
    title: 'Ledger fleet / Validators and mining',
    description:
      'Validator set size, stake, weight, agent score and agreement between nodes; miners, block reward and the ' +
      'mining upgrade countdown.',
    nodeSelection: 'multi',
  })
    .withRow(row('Validators'))
    .withPanel(
      statPanel({
        title: 'Active validators',
        description:
          'Size of the active validator set per network (recording rule network:ledger_validators_active:max).',
        unit: 'none',
        queries: [{ expr: `max by (network) (network:ledger_validators_active:max{${NET}})`, legend: '{{network}}' }],
        thresholds: [[null, 'blue']],
        width: 6,
      }),
    )
    .withPanel(
      statPanel({
        title: 'Total active stake',
        description:
          'Total stake of the active validators, in tokens (ledger_validators_stake_tokens; base units divided ' +
          'by 10^decimals).',
        unit: 'short',
        queries: [{ expr: `max by (network) (ledger_validators_stake_tokens{${NET}})`, legend: '{{network}}' }],
        thresholds: [[null, 'blue']],
        width: 6,
      }),
    )
    .withPanel(
      statPanel({
        title: 'Validator set agreement',
        description:
          'Whether the nodes up agree on the validator set (recording rule ' +
          'network:ledger_fleet_validator_set_mismatch:max).',
        unit: 'none',
        queries: [
          { expr: `max by (network) (network:ledger_fleet_validator_set_mismatch:max{${NET}})`, legend: '{{network}}' },
        ],
        mappings: boolMapping(['agree', 'green'], ['MISMATCH', 'red']),
        width: 6,
      }),
    )
    .withPanel(
      statPanel({
        title: 'Validators reported per node',
        description:
          'Validators each selected node reports (ledger_node_validators). A node that differs from the others ' +
          'is on another view of the chain.',
        unit: 'none',
        queries: [{ expr: perNode(`ledger_node_validators{${NET_NODE}}`), legend: '{{node}}' }],
        thresholds: [[null, 'blue']],
        width: 6,
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Validator set size',
        description:
          'Active set size per network (recording rule network:ledger_validators_active:max) and as each node ' +
          'reports it (ledger_node_validators).',
        unit: 'none',
        min: 0,
        queries: [
          { expr: `max by (network) (network:ledger_validators_active:max{${NET}})`, legend: '{{network}} active set' },
          { expr: perNode(`ledger_node_validators{${NET_NODE}}`), legend: '{{node}}' },
        ],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Stake per validator',
        description: 'Stake of each active validator in tokens (ledger_validator_stake_tokens).',
        unit: 'short',
        min: 0,
        queries: [
          { expr: `max by (network, validator) (ledger_validator_stake_tokens{${NET}})`, legend: '{{validator}}' },
        ],
      }),
    )
    .withPanel(
      tablePanel({
        title: 'Validators',
        description:
          'Active validators with stake in tokens, weight and agent score (ledger_validator_stake_tokens, ' +
          'ledger_validator_weight, ledger_validator_agent_score).',
        unit: 'none',
        queries: [
          { expr: `max by (network, validator) (ledger_validator_stake_tokens{${NET}})` },
          { expr: `max by (network, validator) (ledger_validator_weight{${NET}})` },
          { expr: `max by (network, validator) (ledger_validator_agent_score{${NET}})` },
        ],
        rename: { 'Value #A': 'stake (tokens)', 'Value #B': 'weight', 'Value #C': 'agent score' },
        width: 24,
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Validator weight',
        description: 'Consensus weight of each active validator (ledger_validator_weight).',
        unit: 'none',
        min: 0,
        queries: [{ expr: `max by (network, validator) (ledger_validator_weight{${NET}})`, legend: '{{validator}}' }],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Validator agent score',
        description: 'Agent score of each active validator (ledger_validator_agent_score).',
        unit: 'none',
        queries: [
          { expr: `max by (network, validator) (ledger_validator_agent_score{${NET}})`, legend: '{{validator}}' },
        ],
      }),
    )
    .withRow(row('Mining'))
    .withPanel(
      statPanel({
        title: 'Miners registered',
        description: 'Registered miners per network (ledger_mining_miners).',
        unit: 'none',
        queries: [{ expr: `max by (network) (ledger_mining_miners{${NET}})`, legend: '{{network}}' }],
        thresholds: [[null, 'blue']],
      }),
    )
    .withPanel(
      statPanel({
        title: 'Miners active',
        description: 'Active miners per network (recording rule network:ledger_mining_miners_active:max).',
        unit: 'none',
        queries: [
          { expr: `max by (network) (network:ledger_mining_miners_active:max{${NET}})`, legend: '{{network}}' },
        ],
        thresholds: [
          [null, 'red'],
          [1, 'green'],
        ],
      }),
    )
    .withPanel(
      statPanel({
        title: 'Block reward',
        description: 'Current block reward in tokens (ledger_mining_block_reward_tokens).',
        unit: 'short',
        queries: [{ expr: `max by (network) (ledger_mining_block_reward_tokens{${NET}})`, legend: '{{network}}' }],
        thresholds: [[null, 'blue']],
      }),
    )
    .withPanel(
      statPanel({
        title: 'Mining upgrade height',
        description: 'Block height at which the mining upgrade activates (ledger_mining_upgrade_height).',
        unit: 'none',
        queries: [{ expr: `max by (network) (ledger_mining_upgrade_height{${NET}})`, legend: '{{network}}' }],
        thresholds: [[null, 'blue']],
      }),
    )
    .withPanel(
      statPanel({
        title: 'Upgraded',
        description: 'Whether the mining upgrade is active (ledger_mining_upgraded).',
        unit: 'none',
        queries: [{ expr: `max by (network) (ledger_mining_upgraded{${NET}})`, legend: '{{network}}' }],
        mappings: boolMapping(['not yet', 'blue'], ['upgraded', 'green']),
      }),
    )
    .withPanel(
      statPanel({
        title: 'Blocks until upgrade',
        description:
          'Blocks left before the mining upgrade height, counted from the highest node over all shards ' +
          '(recording rule network:ledger_mining_blocks_until_upgrade:min). At about 3 s a block, 1200 blocks is ' +
          'one hour.',
        unit: 'suffix: blocks',
        queries: [
          { expr: `min by (network) (network:ledger_mining_blocks_until_upgrade:min{${NET}})`, legend: '{{network}}' },
        ],
        thresholds: [
          [null, 'orange'],
          [1200, 'green'],
        ],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Miners',
        description:
          'Registered and active miners per network (ledger_mining_miners, ledger_mining_miners_active) and ' +
          'active miners as each node reports them (ledger_node_miners_active).',
        unit: 'none',
        min: 0,
        queries: [
          { expr: `max by (network) (ledger_mining_miners{${NET}})`, legend: '{{network}} registered' },
          { expr: `max by (network) (network:ledger_mining_miners_active:max{${NET}})`, legend: '{{network}} active' },
          { expr: perNode(`ledger_node_miners_active{${NET_NODE}}`), legend: '{{node}} active' },
        ],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Time until mining upgrade',
        description:
          'Blocks until the upgrade (ledger_mining_blocks_until_upgrade) divided by the observed block rate ' +
          '(ledger_upstream_blocks_total): an estimate of the time left.',
        unit: 's',
        min: 0,
        queries: [
          {
            expr:
              `min by (network) (network:ledger_mining_blocks_until_upgrade:min{${NET}}) / on (network) max by ` +
              `(network) (rate(ledger_upstream_blocks_total{${NET}}[$__rate_interval]))`,
            legend: '{{network}}',
          },
        ],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Block reward over time',
        description: 'Current block reward in tokens per network (ledger_mining_block_reward_tokens).',
        unit: 'short',
        min: 0,
        queries: [{ expr: `max by (network) (ledger_mining_block_reward_tokens{${NET}})`, legend: '{{network}}' }],
        width: 24,
      }),
    );
  return finish(b);
}
