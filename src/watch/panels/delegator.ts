// The watched delegators' row of the watch dashboard: one series per delegation (label validator).
import type { WatchPanelRow } from './types.js';

export const DELEGATOR_PANELS: readonly WatchPanelRow[] = [
  {
    title: 'Delegations',
    panels: [
      {
        type: 'state-timeline',
        title: 'Validators delegated to: active and paid',
        description:
          'Whether each validator delegated to is in the active set (ledger_watch_delegation_validator_active) ' +
          'and was paid in the newest block (ledger_watch_delegation_validator_rewarded).',
        unit: 'none',
        queries: [
          {
            metric: 'ledger_watch_delegation_validator_active',
            by: 'validator',
            legend: '{{name}} {{validator}} active',
          },
          {
            metric: 'ledger_watch_delegation_validator_rewarded',
            by: 'validator',
            legend: '{{name}} {{validator}} paid',
          },
        ],
        bool: [
          ['no', 'red'],
          ['yes', 'green'],
        ],
      },
      {
        type: 'timeseries',
        title: 'Delegated tokens',
        description:
          'Tokens delegated to each validator (ledger_watch_delegation_tokens); a drop or a line that ends is an ' +
          'undelegation (LedgerDelegationRemoved).',
        unit: 'short',
        min: 0,
        queries: [{ metric: 'ledger_watch_delegation_tokens', by: 'validator', legend: '{{name}} {{validator}}' }],
      },
      {
        type: 'timeseries',
        title: 'Commission of the validators delegated to',
        description:
          'Commission each validator delegated to charges (ledger_watch_delegation_commission_ratio) and the ' +
          "delegator's maximum (ledger_watch_delegator_max_commission_ratio).",
        unit: 'percentunit',
        min: 0,
        queries: [
          { metric: 'ledger_watch_delegation_commission_ratio', by: 'validator', legend: '{{name}} {{validator}}' },
          { metric: 'ledger_watch_delegator_max_commission_ratio', legend: '{{name}} maximum' },
        ],
      },
    ],
  },
];
