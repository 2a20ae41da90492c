// The watched agents' row of the watch dashboard.
import type { WatchPanelRow } from './types.js';

export const AGENT_PANELS: readonly WatchPanelRow[] = [
  {
    title: 'Agents',
    panels: [
      {
        type: 'stat',
        title: 'Agent registered',
        description: 'Whether each watched agent is registered (ledger_watch_agent_registered).',
        unit: 'none',
        queries: [{ metric: 'ledger_watch_agent_registered', legend: '{{name}}' }],
        bool: [
          ['NOT REGISTERED', 'red'],
          ['registered', 'green'],
        ],
        width: 8,
      },
      {
        type: 'stat',
        title: 'Decay factor',
        description:
          'The decay factor of each agent (ledger_watch_agent_decay_ratio): it halves every 2,880 epochs since ' +
          'registration; the total score is the weighted sum times it.',
        unit: 'percentunit',
        queries: [{ metric: 'ledger_watch_agent_decay_ratio', legend: '{{name}}' }],
        thresholds: [
          [null, 'red'],
          [0.25, 'orange'],
          [0.5, 'green'],
        ],
        width: 8,
      },
      {
        type: 'stat',
        title: 'Attestations',
        description:
          'Attestations made about each agent (ledger_watch_agent_attestations); their scores add up to ' +
          'ledger_watch_agent_attestation_score_sum.',
        unit: 'none',
        queries: [{ metric: 'ledger_watch_agent_attestations', legend: '{{name}}' }],
        thresholds: [[null, 'blue']],
        width: 8,
      },
      {
        type: 'timeseries',
        title: 'Score by dimension',
        description:
          'Total score and its five dimensions (ledger_watch_agent_score_ratio{dimension}); a validator weighs ' +
          '70% stake and 30% this score.',
        unit: 'percentunit',
        min: 0,
        queries: [
          { metric: 'ledger_watch_agent_score_ratio', by: 'dimension', legend: '{{name}} {{dimension}}' },
          { metric: 'ledger_watch_agent_min_score_ratio', legend: '{{name}} minimum' },
        ],
        width: 24,
      },
    ],
  },
];
