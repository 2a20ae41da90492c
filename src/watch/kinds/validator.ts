// Watched validators: the active set (once per network), each one's detail, and the newest block's
// rewards (once per network). Alerts: inactive, offline, jailed, seat at risk, commission changed.
import * as z from 'zod';
import { WATCH_VALIDATOR_ALERTS } from '../../alerting/rules/definitions/watchValidators.js';
import { watchBlockRewardsProbe } from '../../probes/watch/blockRewards.js';
import { watchValidatorDetailProbe } from '../../probes/watch/validatorDetail.js';
import { watchValidatorSetProbe } from '../../probes/watch/validatorSet.js';
import { checked } from '../../config/sections/fields.js';
import { validatorView } from '../entryViews.js';
import { VALIDATOR_FAMILIES } from '../families.js';
import { defineWatchKind } from '../kind.js';
import { VALIDATOR_PANELS } from '../panels/validator.js';
import type { WatchedValidatorView } from '../types.js';
import { validatorState } from '../words.js';
import { PERCENT, percentReason } from './fields.js';

export const validatorKind = defineWatchKind<WatchedValidatorView>({
  kind: 'validator',
  list: 'validators',
  description: 'Validators to watch: active set, rank, stake, rewards, jail, seat margin, commission.',
  fields: {
    seatMarginBelow: checked(
      percentReason,
      'seatMarginBelow ',
      'seatMarginBelow must be a percentage such as 10% (a string, not a fraction)',
    )
      .optional()
      .meta({ description: 'Warn when its weight is within this much of the lowest seat, e.g. 10%.' }),
    commissionBps: z
      .number()
      .int()
      .min(0)
      .max(10_000)
      .optional()
      .meta({ description: 'The commission it should charge, in basis points; any other value alerts.' }),
  },
  resolve: (v) => ({
    ...(typeof v.seatMarginBelow === 'string' && {
      seatMarginBelow: Number(PERCENT.exec(v.seatMarginBelow)![1]) / 100,
    }),
    ...(v.commissionBps !== undefined && { commissionBps: v.commissionBps }),
  }),
  networkReads: { watchValidatorSet: watchValidatorSetProbe, watchBlockRewards: watchBlockRewardsProbe },
  reads: { watchValidatorDetail: watchValidatorDetailProbe },
  view: validatorView,
  families: VALIDATOR_FAMILIES,
  state: validatorState,
  alerts: WATCH_VALIDATOR_ALERTS,
  panels: VALIDATOR_PANELS,
});
