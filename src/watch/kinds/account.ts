// Watched accounts: balance and unbonding per account, against the network's height, and the
// custom tokens it holds and allows spenders to move (item reads, one per token or allowance;
// decimals from getTokenInfo, read once per network and token). Alerts: balance low, unbonding
// claimable, token balance low, token allowance high.
import * as z from 'zod';
import { ACCOUNT_ALERTS } from '../../alerting/rules/definitions/watchEntries.js';
import { TOKEN_ALERTS } from '../../alerting/rules/definitions/watchTokens.js';
import { watchBalanceProbe } from '../../probes/watch/balance.js';
import { watchTokenAllowanceProbe, watchTokenBalanceProbe, watchTokenInfoProbe } from '../../probes/watch/tokens.js';
import { watchUnbondingProbe } from '../../probes/watch/unbonding.js';
import { accountView } from '../entryViews.js';
import { ACCOUNT_FAMILIES } from '../families.js';
import { defineWatchKind } from '../kind.js';
import { ACCOUNT_PANELS } from '../panels/account.js';
import { TOKEN_PANELS } from '../panels/token.js';
import { TOKEN_FAMILIES } from '../tokenFamilies.js';
import { accountTokens, tokenItemKeys, tokenWords, TOKEN_READS, withoutInfoTimes } from '../tokenViews.js';
import type { WatchedAccountView, WatchState } from '../types.js';
import { accountState } from '../words.js';
import { hexAddress } from './fields.js';

const amount = (what: string) =>
  z
    .number({ error: `${what} must be a number of tokens` })
    .nonnegative()
    .finite();

const RANK: Record<WatchState['status'], number> = { unknown: 0, up: 1, degraded: 2, down: 3 };

function state(v: WatchedAccountView): WatchState {
  const own = accountState(v);
  const t = tokenWords(v);
  if (!t) return own;
  return { status: RANK[t.status] > RANK[own.status] ? t.status : own.status, text: `${own.text}; ${t.text}` };
}

export const accountKind = defineWatchKind<WatchedAccountView>({
  kind: 'account',
  list: 'accounts',
  description: 'Accounts to watch: balance, unbonding, custom tokens and allowances.',
  fields: {
    minBalance: amount('minBalance')
      .optional()
      .meta({ description: 'Tokens (network decimals); below it LedgerAccountBalanceLow fires.' }),
    tokens: z
      .array(
        z.strictObject({
          tokenId: hexAddress('tokenId', 'The token id: 64 lowercase hex characters, no 0x prefix.'),
          minBalance: amount('minBalance')
            .optional()
            .meta({ description: "In the token's own decimals; below it LedgerTokenBalanceLow fires." }),
        }),
      )
      .optional()
      .meta({ description: 'Custom tokens the account holds (getTokenBalance; decimals from getTokenInfo).' }),
    allowances: z
      .array(
        z.strictObject({
          spender: hexAddress('spender', 'The address allowed to spend: 64 lowercase hex characters, no 0x prefix.'),
          tokenId: hexAddress('tokenId', 'The token id: 64 lowercase hex characters, no 0x prefix.'),
          max: amount('max').meta({
            description: "In the token's own decimals; an allowance above it fires LedgerTokenAllowanceHigh.",
          }),
        }),
      )
      .optional()
      .meta({ description: 'What a spender may move of a token of the account (getTokenAllowance).' }),
  },
  resolve: (a) => ({
    ...(a.minBalance !== undefined && { minBalance: a.minBalance }),
    ...(Array.isArray(a.tokens) && a.tokens.length > 0 && { tokens: a.tokens }),
    ...(Array.isArray(a.allowances) && a.allowances.length > 0 && { allowances: a.allowances }),
  }),
  reads: { watchBalance: watchBalanceProbe, watchUnbonding: watchUnbondingProbe },
  itemReads: {
    [TOKEN_READS.balance]: watchTokenBalanceProbe,
    [TOKEN_READS.allowance]: watchTokenAllowanceProbe,
    [TOKEN_READS.info]: watchTokenInfoProbe,
  },
  itemKeys: tokenItemKeys,
  fromNetwork: 'height',
  view: (i) => ({ ...accountView(withoutInfoTimes(i)), ...accountTokens(i) }),
  families: [...ACCOUNT_FAMILIES, ...TOKEN_FAMILIES],
  state,
  alerts: [...ACCOUNT_ALERTS, ...TOKEN_ALERTS],
  panels: [...ACCOUNT_PANELS, ...TOKEN_PANELS],
});
