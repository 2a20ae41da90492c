// Watched delegators: getUserDelegations per delegator, placed against the network's active set
// and newest block rewards (the validators' own reads, shared: read once per network). Alerts:
// a validator delegated to inactive, offline or charging too much; a delegation removed or shrunk.
import * as z from 'zod';
import { DELEGATOR_ALERTS } from '../../alerting/rules/definitions/watchDelegations.js';
import { watchBlockRewardsProbe } from '../../probes/watch/blockRewards.js';
import { watchDelegationsProbe } from '../../probes/watch/delegations.js';
import { watchValidatorSetProbe } from '../../probes/watch/validatorSet.js';
import { DELEGATOR_FAMILIES } from '../families.js';
import { defineWatchKind } from '../kind.js';
import { DELEGATOR_PANELS } from '../panels/delegator.js';
import { delegatorView } from '../stakeViews.js';
import { delegatorState } from '../stakeWords.js';
import type { WatchedDelegatorView } from '../types.js';

export const delegatorKind = defineWatchKind<WatchedDelegatorView>({
  kind: 'delegator',
  list: 'delegators',
  description:
    'Addresses that delegate stake to validators: each delegation, its validator in the set, paid, its commission.',
  fields: {
    maxCommissionBps: z
      .number({ error: 'maxCommissionBps must be a number of basis points' })
      .int()
      .min(0)
      .max(10_000)
      .optional()
      .meta({ description: 'A validator delegated to charging more (basis points) alerts.' }),
  },
  resolve: (d) => (d.maxCommissionBps !== undefined ? { maxCommissionBps: d.maxCommissionBps } : {}),
  networkReads: { watchValidatorSet: watchValidatorSetProbe, watchBlockRewards: watchBlockRewardsProbe },
  reads: { watchDelegations: watchDelegationsProbe },
  view: delegatorView,
  families: DELEGATOR_FAMILIES,
  state: delegatorState,
  alerts: DELEGATOR_ALERTS,
  panels: DELEGATOR_PANELS,
});
