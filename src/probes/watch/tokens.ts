// The reads of watched accounts' custom tokens: <ns>_getTokenBalance [addr, tokenId] per token
// held, <ns>_getTokenAllowance [owner, spender, tokenId] per allowance (both each interval), and
// <ns>_getTokenInfo [tokenId] once per network and token (decimals and symbol never change; a
// failed read, or a token the node does not know yet, is read again at the next interval).
// Entities are made once per `watch:` section content (an explicit key, not the object's identity).
import type { FanOutEntity } from '../../domain.js';
import type { WatchEntry, WatchSettings } from '../../watch/types.js';
import { parseAmount } from '../parse.js';
import type { FanOutConfig, FanOutProbe } from '../types.js';
import { watchInterval } from './entities.js';
import { parseTokenInfo, type TokenInfo } from './tokenParse.js';

/** Entity keys: unique within each probe. */
export const tokenBalanceKey = (entry: string, tokenId: string) => `${entry}\u0000${tokenId}`;
export const tokenAllowanceKey = (entry: string, spender: string, tokenId: string) =>
  `${entry}\u0000${spender}\u0000${tokenId}`;
export const tokenInfoKey = (network: string, tokenId: string) => `${network}\u0000${tokenId}`;

/** Every token an account entry names, in its tokens then its allowances, once each. */
export function tokenIdsOf(e: WatchEntry): string[] {
  return [...new Set([...(e.tokens ?? []).map((t) => t.tokenId), ...(e.allowances ?? []).map((a) => a.tokenId)])];
}

interface Lists {
  key: string;
  balances: FanOutEntity[];
  allowances: FanOutEntity[];
  infos: FanOutEntity[];
}

let last: Lists | undefined;

const contentKey = (w: WatchSettings): string =>
  JSON.stringify(
    w.entries
      .filter((e) => e.kind === 'account' && (e.tokens?.length || e.allowances?.length))
      .map((e) => [e.name, e.network, e.address, e.tokens?.map((t) => t.tokenId), e.allowances]),
  );

function listsOf(w: WatchSettings): Lists {
  const key = contentKey(w);
  if (last?.key === key) return last;
  const lists: Lists = { key, balances: [], allowances: [], infos: [] };
  const infos = new Map<string, FanOutEntity>();
  for (const e of w.entries) {
    if (e.kind !== 'account') continue;
    for (const t of e.tokens ?? [])
      lists.balances.push({
        key: tokenBalanceKey(e.name, t.tokenId),
        network: e.network,
        label: 'account',
        id: e.address,
        labels: { name: e.name, token: t.tokenId },
        params: [e.address, t.tokenId],
      });
    for (const a of e.allowances ?? [])
      lists.allowances.push({
        key: tokenAllowanceKey(e.name, a.spender, a.tokenId),
        network: e.network,
        label: 'account',
        id: e.address,
        labels: { name: e.name, token: a.tokenId, spender: a.spender },
        params: [e.address, a.spender, a.tokenId],
      });
    for (const tokenId of tokenIdsOf(e)) {
      const k = tokenInfoKey(e.network, tokenId);
      if (!infos.has(k)) infos.set(k, { key: k, network: e.network, label: 'token', id: tokenId, params: [tokenId] });
    }
  }
  lists.infos = [...infos.values()].sort((a, b) => (a.key < b.key ? -1 : 1));
  last = lists;
  return lists;
}

const of =
  (pick: 'balances' | 'allowances' | 'infos') =>
  (config: FanOutConfig): readonly FanOutEntity[] =>
    config.watch ? listsOf(config.watch)[pick] : [];

export const watchTokenBalanceProbe: FanOutProbe<bigint> = {
  target: 'entities',
  method: 'getTokenBalance',
  entities: of('balances'),
  intervalMs: watchInterval,
  parse: (result) => parseAmount(result, 'getTokenBalance'),
  metrics: [],
};

export const watchTokenAllowanceProbe: FanOutProbe<bigint> = {
  target: 'entities',
  method: 'getTokenAllowance',
  entities: of('allowances'),
  intervalMs: watchInterval,
  parse: (result) => parseAmount(result, 'getTokenAllowance'),
  metrics: [],
};

export const watchTokenInfoProbe: FanOutProbe<TokenInfo> = {
  target: 'entities',
  method: 'getTokenInfo',
  entities: of('infos'),
  intervalMs: watchInterval,
  exactNumbers: ['total_supply'],
  // A known token's decimals and symbol never change: read once. An unknown one may be created later.
  keep: (data) => data.known,
  parse: (result, e) => parseTokenInfo(result, e.id),
  metrics: [],
};
