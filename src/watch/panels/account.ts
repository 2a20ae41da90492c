// The watched accounts' row of the watch dashboard.
import type { WatchPanelRow } from './types.js';

export const ACCOUNT_PANELS: readonly WatchPanelRow[] = [
  {
    title: 'Accounts',
    panels: [
      {
        type: 'timeseries',
        title: 'Balance',
        description:
          'Balance of each watched account in tokens (ledger_watch_account_balance_tokens) and its configured ' +
          'minimum (ledger_watch_account_min_balance_tokens).',
        unit: 'short',
        queries: [
          { metric: 'ledger_watch_account_balance_tokens', legend: '{{name}}' },
          { metric: 'ledger_watch_account_min_balance_tokens', legend: '{{name}} minimum' },
        ],
      },
      {
        type: 'timeseries',
        title: 'Unbonding',
        description:
          'Unbonding stake in tokens, pending and released but not claimed ' +
          '(ledger_watch_account_unbonding_tokens{state}).',
        unit: 'short',
        min: 0,
        queries: [{ metric: 'ledger_watch_account_unbonding_tokens', by: 'state', legend: '{{name}} {{state}}' }],
      },
    ],
  },
];
