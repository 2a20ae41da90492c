// The per-node budget as the probes apply it: the polling settings (config/sections/polling.ts)
// with the defaults filled in, split into what the /metrics parser enforces while it reads and
// the cap on a validator list.
import type { PollingSettings } from '../domain.js';
import { DEFAULT_UPSTREAM_BUDGET, type UpstreamBudget } from '../exposition/index.js';

/** Validators one node may report; a longer list is refused (each becomes series and summed stake). */
export const DEFAULT_MAX_VALIDATORS = 10_000;

export interface NodeBudget {
  upstream: UpstreamBudget;
  maxValidators: number;
}

export type BudgetSettings = Pick<
  PollingSettings,
  'maxUpstreamSeries' | 'maxUpstreamBytes' | 'maxUpstreamFamilies' | 'maxUpstreamHelpChars' | 'maxValidators'
>;

export function nodeBudget(p: BudgetSettings): NodeBudget {
  return {
    upstream: {
      maxSeries: p.maxUpstreamSeries,
      maxBytes: p.maxUpstreamBytes ?? DEFAULT_UPSTREAM_BUDGET.maxBytes,
      maxFamilies: p.maxUpstreamFamilies ?? DEFAULT_UPSTREAM_BUDGET.maxFamilies,
      maxHelpChars: p.maxUpstreamHelpChars ?? DEFAULT_UPSTREAM_BUDGET.maxHelpChars,
    },
    maxValidators: maxValidatorsOf(p),
  };
}

/** The one cap on a validator list, for the node probe and the watch's read of the set alike. */
export function maxValidatorsOf(p: Pick<PollingSettings, 'maxValidators'>): number {
  return p.maxValidators ?? DEFAULT_MAX_VALIDATORS;
}
