// The custom tokens' row of the watch dashboard (accounts[].tokens and accounts[].allowances).
import type { WatchPanelRow } from './types.js';

export const TOKEN_PANELS: readonly WatchPanelRow[] = [
  {
    title: 'Tokens and allowances',
    panels: [
      {
        type: 'timeseries',
        title: 'Token balance',
        description:
          "Balance of each watched custom token in the token's own decimals (ledger_watch_token_balance_tokens) " +
          'and its configured minimum (ledger_watch_token_min_balance_tokens).',
        unit: 'short',
        queries: [
          { metric: 'ledger_watch_token_balance_tokens', by: 'token, symbol', legend: '{{name}} {{symbol}}' },
          {
            metric: 'ledger_watch_token_min_balance_tokens',
            by: 'token, symbol',
            legend: '{{name}} {{symbol}} minimum',
          },
        ],
      },
      {
        type: 'timeseries',
        title: 'Allowances',
        description:
          'What each spender may move of a token of the account (ledger_watch_token_allowance_tokens) and the ' +
          'configured most (ledger_watch_token_allowance_max_tokens): above it, LedgerTokenAllowanceHigh pages.',
        unit: 'short',
        min: 0,
        queries: [
          {
            metric: 'ledger_watch_token_allowance_tokens',
            by: 'token, symbol, spender',
            legend: '{{name}} {{symbol}} to {{spender}}',
          },
          {
            metric: 'ledger_watch_token_allowance_max_tokens',
            by: 'token, symbol, spender',
            legend: '{{name}} {{symbol}} to {{spender}} most',
          },
        ],
      },
    ],
  },
];
