// Watched accounts: balance and unbonding per account, against the network's height. Alerts:
// balance low, unbonding claimable.
import * as z from 'zod';
import { ACCOUNT_ALERTS } from '../../alerting/rules/definitions/watchEntries.js';
import { watchBalanceProbe } from '../../probes/watch/balance.js';
import { watchUnbondingProbe } from '../../probes/watch/unbonding.js';
import { accountView } from '../entryViews.js';
import { ACCOUNT_FAMILIES } from '../families.js';
import { defineWatchKind } from '../kind.js';
import { ACCOUNT_PANELS } from '../panels/account.js';
import type { WatchedAccountView } from '../types.js';
import { accountState } from '../words.js';

export const accountKind = defineWatchKind<WatchedAccountView>({
  kind: 'account',
  list: 'accounts',
  description: 'Accounts to watch: balance and unbonding.',
  fields: {
    minBalance: z
      .number({ error: 'minBalance must be a number of tokens' })
      .nonnegative()
      .finite()
      .optional()
      .meta({ description: 'Tokens (network decimals); below it LedgerAccountBalanceLow fires.' }),
  },
  resolve: (a) => (a.minBalance !== undefined ? { minBalance: a.minBalance } : {}),
  reads: { watchBalance: watchBalanceProbe, watchUnbonding: watchUnbondingProbe },
  fromNetwork: 'height',
  view: accountView,
  families: ACCOUNT_FAMILIES,
  state: accountState,
  alerts: ACCOUNT_ALERTS,
  panels: ACCOUNT_PANELS,
});
