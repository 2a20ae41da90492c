// The ledger_watch_token_* families of watched accounts (labels network, name, account, and token,
// symbol, spender as fit): balances and allowances in the token's own decimals, with the entry's
// own thresholds beside them so Prometheus rules compare per entry as the built-in engine does.
// No value (token info or the amount not read yet), no sample.
import { escapeLabelValue } from '../exposition/grammar.js';
import type { WatchFamily } from './families.js';
import type { TokenAllowanceView, TokenBalanceView, WatchedAccountView } from './types.js';

export const TOKEN_METRICS = {
  balance: 'ledger_watch_token_balance_tokens',
  minBalance: 'ledger_watch_token_min_balance_tokens',
  allowance: 'ledger_watch_token_allowance_tokens',
  allowanceMax: 'ledger_watch_token_allowance_max_tokens',
} as const;

const symbolOf = (t: TokenBalanceView | TokenAllowanceView): string | undefined =>
  t.info?.known ? t.info.symbol : undefined;

const tokenLabels = (t: TokenBalanceView | TokenAllowanceView, symbol: string) =>
  `,token="${escapeLabelValue(t.tokenId)}",symbol="${escapeLabelValue(symbol)}"`;

function balances(value: (t: TokenBalanceView) => number | undefined): WatchFamily['samples'] {
  return (v) => {
    const out: Array<[string, number | undefined]> = [];
    for (const t of (v as WatchedAccountView).tokenBalances ?? []) {
      const symbol = symbolOf(t);
      if (symbol !== undefined) out.push([tokenLabels(t, symbol), value(t)]);
    }
    return out;
  };
}

function allowances(value: (t: TokenAllowanceView) => number | undefined): WatchFamily['samples'] {
  return (v) => {
    const out: Array<[string, number | undefined]> = [];
    for (const a of (v as WatchedAccountView).tokenAllowances ?? []) {
      const symbol = symbolOf(a);
      if (symbol !== undefined)
        out.push([`${tokenLabels(a, symbol)},spender="${escapeLabelValue(a.spender)}"`, value(a)]);
    }
    return out;
  };
}

const family = (name: string, help: string, extraLabels: readonly string[], samples: WatchFamily['samples']) =>
  ({ name, help, type: 'gauge', kinds: ['account'], extraLabels, samples }) satisfies WatchFamily;

export const TOKEN_FAMILIES: readonly WatchFamily[] = [
  family(
    TOKEN_METRICS.balance,
    "Balance of a custom token held by the watched account, in the token's own decimals.",
    ['token', 'symbol'],
    balances((t) => t.balanceTokens),
  ),
  family(
    TOKEN_METRICS.minBalance,
    "The watched account's minBalance setting for the token, in the token's own decimals.",
    ['token', 'symbol'],
    balances((t) => t.minBalance),
  ),
  family(
    TOKEN_METRICS.allowance,
    "What the spender may move of the watched account's token (getTokenAllowance), in the token's own decimals.",
    ['token', 'symbol', 'spender'],
    allowances((a) => a.allowanceTokens),
  ),
  family(
    TOKEN_METRICS.allowanceMax,
    "The watched account's max setting for the spender's allowance, in the token's own decimals.",
    ['token', 'symbol', 'spender'],
    allowances((a) => a.max),
  ),
];
