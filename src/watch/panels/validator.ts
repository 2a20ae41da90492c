// The watched validators' row of the watch dashboard.
import type { WatchPanelRow } from './types.js';

export const VALIDATOR_PANELS: readonly WatchPanelRow[] = [
  {
    title: 'Validators',
    panels: [
      {
        type: 'stat',
        title: 'In the active set',
        description:
          'Whether each watched validator is in the active set (ledger_watch_validator_active); the set is ' +
          'elected at epoch boundaries.',
        unit: 'none',
        queries: [{ metric: 'ledger_watch_validator_active', legend: '{{name}}' }],
        bool: [
          ['OUT', 'red'],
          ['active', 'green'],
        ],
        width: 8,
      },
      {
        type: 'stat',
        title: 'Paid in the newest block',
        description:
          'Whether it was paid in the newest block read (ledger_watch_validator_rewarded): 0 while active means ' +
          'offline, unpaid until the next epoch.',
        unit: 'none',
        queries: [{ metric: 'ledger_watch_validator_rewarded', legend: '{{name}}' }],
        bool: [
          ['UNPAID', 'red'],
          ['paid', 'green'],
        ],
        width: 8,
      },
      {
        type: 'stat',
        title: 'Jailed',
        description: 'Whether it is jailed (ledger_watch_validator_jailed); only equivocation jails, for one epoch.',
        unit: 'none',
        queries: [{ metric: 'ledger_watch_validator_jailed', legend: '{{name}}' }],
        bool: [
          ['no', 'green'],
          ['JAILED', 'red'],
        ],
        width: 8,
      },
      {
        type: 'table',
        title: 'Validators',
        description:
          'Rank in the active set (1 = heaviest), stake in tokens, weight and commission of each watched validator.',
        unit: 'none',
        queries: [
          { metric: 'ledger_watch_validator_rank' },
          { metric: 'ledger_watch_validator_stake_tokens' },
          { metric: 'ledger_watch_validator_weight' },
          { metric: 'ledger_watch_validator_commission_ratio' },
        ],
        rename: { 'Value #A': 'rank', 'Value #B': 'stake (tokens)', 'Value #C': 'weight', 'Value #D': 'commission' },
        width: 24,
      },
      {
        type: 'timeseries',
        title: 'Seat margin',
        description:
          "(own weight - lowest seat's weight) / own weight while the set is full, 1 while seats are free " +
          '(ledger_watch_validator_seat_margin_ratio), and the configured warning margin.',
        unit: 'percentunit',
        queries: [
          { metric: 'ledger_watch_validator_seat_margin_ratio', legend: '{{name}}' },
          { metric: 'ledger_watch_validator_seat_margin_below_ratio', legend: '{{name}} warns below' },
        ],
      },
      {
        type: 'timeseries',
        title: 'Blocks this epoch',
        description:
          'Slots expected, blocks produced and signed in the current epoch ' +
          '(ledger_watch_validator_epoch_blocks); reset at each boundary.',
        unit: 'none',
        min: 0,
        queries: [{ metric: 'ledger_watch_validator_epoch_blocks', by: 'kind', legend: '{{name}} {{kind}}' }],
      },
      {
        type: 'state-timeline',
        title: 'Active and paid over time',
        description:
          'In the active set (ledger_watch_validator_active) and paid (ledger_watch_validator_rewarded), over ' +
          'the time range.',
        unit: 'none',
        queries: [
          { metric: 'ledger_watch_validator_active', legend: '{{name}} active' },
          { metric: 'ledger_watch_validator_rewarded', legend: '{{name}} paid' },
        ],
        bool: [
          ['no', 'red'],
          ['yes', 'green'],
        ],
      },
    ],
  },
];
