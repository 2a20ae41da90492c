// Validators, miners and accounts: the operator's own entries of the `watch:` section, each read
// through the fleet's nodes of its network (ledger_watch_* series; one per entry, however many
// replicas export it, hence max by).
import type * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import {
  NET,
  boolMapping,
  dashboardShell,
  finish,
  row,
  stateTimelinePanel,
  statPanel,
  tablePanel,
  timeSeriesPanel,
} from './common.js';

export const WATCH_UID = 'ledger-watch';

const V = 'network, name, validator';
const MI = 'network, name, miner';
const A = 'network, name, account';
const of = (by: string, metric: string, extra = '') => `max by (${by}${extra}) (${metric}{${NET}})`;

function validatorPanels(b: dashboard.DashboardBuilder): dashboard.DashboardBuilder {
  return b
    .withRow(row('Validators'))
    .withPanel(
      statPanel({
        title: 'In the active set',
        description:
          'Whether each watched validator is in the active set (ledger_watch_validator_active); the set is ' +
          'elected at epoch boundaries.',
        unit: 'none',
        queries: [{ expr: of(V, 'ledger_watch_validator_active'), legend: '{{name}}' }],
        mappings: boolMapping(['OUT', 'red'], ['active', 'green']),
        width: 8,
      }),
    )
    .withPanel(
      statPanel({
        title: 'Paid in the newest block',
        description:
          'Whether it was paid in the newest block read (ledger_watch_validator_rewarded): 0 while active means ' +
          'offline, unpaid until the next epoch.',
        unit: 'none',
        queries: [{ expr: of(V, 'ledger_watch_validator_rewarded'), legend: '{{name}}' }],
        mappings: boolMapping(['UNPAID', 'red'], ['paid', 'green']),
        width: 8,
      }),
    )
    .withPanel(
      statPanel({
        title: 'Jailed',
        description: 'Whether it is jailed (ledger_watch_validator_jailed); only equivocation jails, for one epoch.',
        unit: 'none',
        queries: [{ expr: of(V, 'ledger_watch_validator_jailed'), legend: '{{name}}' }],
        mappings: boolMapping(['no', 'green'], ['JAILED', 'red']),
        width: 8,
      }),
    )
    .withPanel(
      tablePanel({
        title: 'Validators',
        description:
          'Rank in the active set (1 = heaviest), stake in tokens, weight and commission of each watched validator.',
        unit: 'none',
        queries: [
          { expr: of(V, 'ledger_watch_validator_rank') },
          { expr: of(V, 'ledger_watch_validator_stake_tokens') },
          { expr: of(V, 'ledger_watch_validator_weight') },
          { expr: of(V, 'ledger_watch_validator_commission_ratio') },
        ],
        rename: { 'Value #A': 'rank', 'Value #B': 'stake (tokens)', 'Value #C': 'weight', 'Value #D': 'commission' },
        width: 24,
      }),
    );
}

function validatorTrendPanels(b: dashboard.DashboardBuilder): dashboard.DashboardBuilder {
  return b
    .withPanel(
      timeSeriesPanel({
        title: 'Seat margin',
        description:
          "(own weight - lowest seat's weight) / own weight while the set is full, 1 while seats are free " +
          '(ledger_watch_validator_seat_margin_ratio), and the configured warning margin.',
        unit: 'percentunit',
        queries: [
          { expr: of(V, 'ledger_watch_validator_seat_margin_ratio'), legend: '{{name}}' },
          { expr: of(V, 'ledger_watch_validator_seat_margin_below_ratio'), legend: '{{name}} warns below' },
        ],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Blocks this epoch',
        description:
          'Slots expected, blocks produced and signed in the current epoch ' +
          '(ledger_watch_validator_epoch_blocks); reset at each boundary.',
        unit: 'none',
        min: 0,
        queries: [{ expr: of(V, 'ledger_watch_validator_epoch_blocks', ', kind'), legend: '{{name}} {{kind}}' }],
      }),
    )
    .withPanel(
      stateTimelinePanel({
        title: 'Active and paid over time',
        description:
          'In the active set (ledger_watch_validator_active) and paid (ledger_watch_validator_rewarded), over ' +
          'the time range.',
        unit: 'none',
        queries: [
          { expr: of(V, 'ledger_watch_validator_active'), legend: '{{name}} active' },
          { expr: of(V, 'ledger_watch_validator_rewarded'), legend: '{{name}} paid' },
        ],
        mappings: boolMapping(['no', 'red'], ['yes', 'green']),
      }),
    );
}

function minerPanels(b: dashboard.DashboardBuilder): dashboard.DashboardBuilder {
  return b
    .withRow(row('Miners'))
    .withPanel(
      statPanel({
        title: 'Miner active',
        description:
          'Whether each watched miner is active (ledger_watch_miner_active): 6 missed check-ins in a row make it ' +
          'inactive.',
        unit: 'none',
        queries: [{ expr: of(MI, 'ledger_watch_miner_active'), legend: '{{name}}' }],
        mappings: boolMapping(['INACTIVE', 'red'], ['active', 'green']),
        width: 8,
      }),
    )
    .withPanel(
      statPanel({
        title: 'Reward multiplier',
        description:
          'The multiplier the node pays (ledger_watch_miner_reward_multiplier): 1 with 12 check-ins in the last ' +
          '12 epochs, 0.8 with 9-11, 0.5 with 6-8.',
        unit: 'none',
        decimals: 1,
        queries: [{ expr: of(MI, 'ledger_watch_miner_reward_multiplier'), legend: '{{name}}' }],
        thresholds: [
          [null, 'red'],
          [0.5, 'orange'],
          [1, 'green'],
        ],
        width: 8,
      }),
    )
    .withPanel(
      statPanel({
        title: 'Pending rewards',
        description:
          'Rewards of the current epoch, paid at the boundary if it checked in ' +
          '(ledger_watch_miner_pending_rewards_tokens).',
        unit: 'short',
        queries: [{ expr: of(MI, 'ledger_watch_miner_pending_rewards_tokens'), legend: '{{name}}' }],
        thresholds: [[null, 'blue']],
        width: 8,
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Missed check-ins',
        description:
          'Epochs missed in a row (ledger_watch_miner_consecutive_misses) and epochs since the last check-in ' +
          '(ledger_watch_miner_epochs_since_checkin).',
        unit: 'none',
        min: 0,
        queries: [
          { expr: of(MI, 'ledger_watch_miner_consecutive_misses'), legend: '{{name}} misses in a row' },
          { expr: of(MI, 'ledger_watch_miner_epochs_since_checkin'), legend: '{{name}} epochs since check-in' },
        ],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Attendance and reputation',
        description:
          'Check-ins among the last 12 epochs (ledger_watch_miner_attendance_epochs) and reputation ' +
          '(ledger_watch_miner_reputation_ratio, x12 to share the axis).',
        unit: 'none',
        min: 0,
        queries: [
          { expr: of(MI, 'ledger_watch_miner_attendance_epochs'), legend: '{{name}} check-ins of 12' },
          { expr: `12 * ${of(MI, 'ledger_watch_miner_reputation_ratio')}`, legend: '{{name}} reputation x12' },
        ],
      }),
    );
}

function accountPanels(b: dashboard.DashboardBuilder): dashboard.DashboardBuilder {
  return b
    .withRow(row('Accounts and reading'))
    .withPanel(
      timeSeriesPanel({
        title: 'Balance',
        description:
          'Balance of each watched account in tokens (ledger_watch_account_balance_tokens) and its configured ' +
          'minimum (ledger_watch_account_min_balance_tokens).',
        unit: 'short',
        queries: [
          { expr: of(A, 'ledger_watch_account_balance_tokens'), legend: '{{name}}' },
          { expr: of(A, 'ledger_watch_account_min_balance_tokens'), legend: '{{name}} minimum' },
        ],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Unbonding',
        description:
          'Unbonding stake in tokens, pending and released but not claimed ' +
          '(ledger_watch_account_unbonding_tokens{state}).',
        unit: 'short',
        min: 0,
        queries: [{ expr: of(A, 'ledger_watch_account_unbonding_tokens', ', state'), legend: '{{name}} {{state}}' }],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Time since the last successful read',
        description:
          'Seconds since each entry was last read (ledger_watch_last_success_timestamp_seconds); ' +
          'LedgerWatchReadFailing fires after 3 read intervals.',
        unit: 's',
        min: 0,
        queries: [
          {
            expr: `time() - max by (network, name) (ledger_watch_last_success_timestamp_seconds{${NET}})`,
            legend: '{{name}}',
          },
        ],
      }),
    )
    .withPanel(
      timeSeriesPanel({
        title: 'Read failures',
        description: 'Failed reads per second by reason (ledger_watch_read_failures_total).',
        unit: 'reqps',
        min: 0,
        queries: [
          {
            expr: `max by (network, name, reason) (rate(ledger_watch_read_failures_total{${NET}}[$__rate_interval]))`,
            legend: '{{name}} {{reason}}',
          },
        ],
      }),
    );
}

export function watchDashboard(): dashboard.Dashboard {
  const b = dashboardShell({
    uid: WATCH_UID,
    title: 'Ledger fleet / Validators, miners and accounts',
    description:
      "The operator's own validators, miners and accounts (the watch: section): active set, payment, check-ins, " +
      'balances.',
    nodeSelection: 'multi',
  });
  return finish(accountPanels(minerPanels(validatorTrendPanels(validatorPanels(b)))));
}
