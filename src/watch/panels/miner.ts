// The watched miners' row of the watch dashboard.
import type { WatchPanelRow } from './types.js';

export const MINER_PANELS: readonly WatchPanelRow[] = [
  {
    title: 'Miners',
    panels: [
      {
        type: 'stat',
        title: 'Miner active',
        description:
          'Whether each watched miner is active (ledger_watch_miner_active): 6 missed check-ins in a row make it ' +
          'inactive.',
        unit: 'none',
        queries: [{ metric: 'ledger_watch_miner_active', legend: '{{name}}' }],
        bool: [
          ['INACTIVE', 'red'],
          ['active', 'green'],
        ],
        width: 8,
      },
      {
        type: 'stat',
        title: 'Reward multiplier',
        description:
          'The multiplier the node pays (ledger_watch_miner_reward_multiplier): 1 with 12 check-ins in the last ' +
          '12 epochs, 0.8 with 9-11, 0.5 with 6-8.',
        unit: 'none',
        decimals: 1,
        queries: [{ metric: 'ledger_watch_miner_reward_multiplier', legend: '{{name}}' }],
        thresholds: [
          [null, 'red'],
          [0.5, 'orange'],
          [1, 'green'],
        ],
        width: 8,
      },
      {
        type: 'stat',
        title: 'Pending rewards',
        description:
          'Rewards of the current epoch, paid at the boundary if it checked in ' +
          '(ledger_watch_miner_pending_rewards_tokens).',
        unit: 'short',
        queries: [{ metric: 'ledger_watch_miner_pending_rewards_tokens', legend: '{{name}}' }],
        thresholds: [[null, 'blue']],
        width: 8,
      },
      {
        type: 'timeseries',
        title: 'Missed check-ins',
        description:
          'Epochs missed in a row (ledger_watch_miner_consecutive_misses) and epochs since the last check-in ' +
          '(ledger_watch_miner_epochs_since_checkin).',
        unit: 'none',
        min: 0,
        queries: [
          { metric: 'ledger_watch_miner_consecutive_misses', legend: '{{name}} misses in a row' },
          { metric: 'ledger_watch_miner_epochs_since_checkin', legend: '{{name}} epochs since check-in' },
        ],
      },
      {
        type: 'timeseries',
        title: 'Attendance and reputation',
        description:
          'Check-ins among the last 12 epochs (ledger_watch_miner_attendance_epochs) and reputation ' +
          '(ledger_watch_miner_reputation_ratio, x12 to share the axis).',
        unit: 'none',
        min: 0,
        queries: [
          { metric: 'ledger_watch_miner_attendance_epochs', legend: '{{name}} check-ins of 12' },
          { metric: 'ledger_watch_miner_reputation_ratio', scale: 12, legend: '{{name}} reputation x12' },
        ],
      },
    ],
  },
];
