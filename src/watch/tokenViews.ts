// An account's custom tokens and allowances (accounts[].tokens, accounts[].allowances), from the
// item reads: each balance and allowance in the token's own decimals, known once its getTokenInfo
// was read (read once per network and token). Pure.
import type { EntityReadView } from '../domain.js';
import type { TokenInfo } from '../probes/watch/tokenParse.js';
import { tokenAllowanceKey, tokenBalanceKey, tokenIdsOf, tokenInfoKey } from '../probes/watch/tokens.js';
import { tokens, type EntryInputs } from './inputs.js';
import type {
  TokenAllowanceView,
  TokenBalanceView,
  TokenInfoView,
  WatchEntry,
  WatchedAccountView,
  WatchState,
} from './types.js';

export const TOKEN_READS = {
  balance: 'watchTokenBalance',
  allowance: 'watchTokenAllowance',
  info: 'watchTokenInfo',
} as const;

/** The entity keys of an account's token reads, in config order (kind.itemKeys). */
export function tokenItemKeys(e: WatchEntry): Record<string, string[]> {
  return {
    [TOKEN_READS.balance]: (e.tokens ?? []).map((t) => tokenBalanceKey(e.name, t.tokenId)),
    [TOKEN_READS.allowance]: (e.allowances ?? []).map((a) => tokenAllowanceKey(e.name, a.spender, a.tokenId)),
    [TOKEN_READS.info]: tokenIdsOf(e).map((t) => tokenInfoKey(e.network, t)),
  };
}

const infoView = (t: TokenInfo | undefined): TokenInfoView | undefined =>
  t === undefined
    ? undefined
    : t.known
      ? { known: true, symbol: t.symbol, decimals: t.decimals, name: t.name }
      : { known: false };

/** The account's token views, from its inputs' items (absent when it names no token). */
export function accountTokens(
  i: EntryInputs,
): Pick<WatchedAccountView, 'tokenBalances' | 'tokenAllowances'> | undefined {
  const e = i.entry;
  if (!e.tokens?.length && !e.allowances?.length) return undefined;
  const items = i.items ?? {};
  const infos = new Map<string, TokenInfo | undefined>();
  tokenIdsOf(e).forEach((t, n) => infos.set(t, items[TOKEN_READS.info]?.[n]?.data as TokenInfo | undefined));
  const amount = (r: EntityReadView | undefined, info: TokenInfo | undefined) =>
    r?.data !== undefined && info?.known ? tokens(r.data as bigint, info.decimals) : undefined;
  const tokenBalances = (e.tokens ?? []).map((t, n): TokenBalanceView => {
    const info = infos.get(t.tokenId);
    const balance = amount(items[TOKEN_READS.balance]?.[n], info);
    return {
      tokenId: t.tokenId,
      ...(info && { info: infoView(info) }),
      ...(balance !== undefined && { balanceTokens: balance }),
      ...(t.minBalance !== undefined && { minBalance: t.minBalance }),
    };
  });
  const tokenAllowances = (e.allowances ?? []).map((a, n): TokenAllowanceView => {
    const info = infos.get(a.tokenId);
    const allowance = amount(items[TOKEN_READS.allowance]?.[n], info);
    return {
      tokenId: a.tokenId,
      spender: a.spender,
      ...(info && { info: infoView(info) }),
      ...(allowance !== undefined && { allowanceTokens: allowance }),
      max: a.max,
    };
  });
  return { tokenBalances, tokenAllowances };
}

/**
 * The item reads that count for how reading the entry goes: balances and allowances each interval;
 * token info only by its failures (read once, its time would make the entry look stale).
 */
export function withoutInfoTimes(i: EntryInputs): EntryInputs {
  const items = i.items;
  const infos = items?.[TOKEN_READS.info];
  if (!items || !infos) return i;
  const info = infos.map((r) => r && { ...r, lastSuccessAt: r.data === undefined ? undefined : Infinity });
  return { ...i, items: { ...items, [TOKEN_READS.info]: info } };
}

const short = (id: string) => `${id.slice(0, 8)}…`;
const amount = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 4 });

/** The tokens' part of an account's state in words: what is wrong, or undefined when nothing is. */
export function tokenWords(v: WatchedAccountView): WatchState | undefined {
  const notes: string[] = [];
  let status: WatchState['status'] = 'up';
  for (const a of v.tokenAllowances ?? []) {
    if (a.info && !a.info.known) notes.push(`token ${short(a.tokenId)} unknown on this network`);
    else if (a.allowanceTokens !== undefined && a.allowanceTokens > a.max) {
      const sym = a.info?.known ? ` ${a.info.symbol}` : '';
      notes.push(`${short(a.spender)} may spend ${amount(a.allowanceTokens)}${sym}, above ${amount(a.max)}`);
      status = 'down';
    }
  }
  for (const t of v.tokenBalances ?? []) {
    if (t.info && !t.info.known) notes.push(`token ${short(t.tokenId)} unknown on this network`);
    else if (t.balanceTokens !== undefined && t.minBalance !== undefined && t.balanceTokens < t.minBalance) {
      const sym = t.info?.known ? ` ${t.info.symbol}` : '';
      notes.push(`${amount(t.balanceTokens)}${sym} below ${amount(t.minBalance)}`);
      if (status === 'up') status = 'degraded';
    }
  }
  if (notes.length === 0) return undefined;
  // An unknown token is a configuration problem, not money at risk.
  return { status: status === 'up' ? 'degraded' : status, text: notes.join('; ') };
}
