// A simulated network's custom tokens as claw-node 0.5.8 serves them (reference-node-facts.md
// "Delegations, agents, tokens and services"): getTokenBalance [addr, tokenId] and
// getTokenAllowance [owner, spender, tokenId] as u128 decimal strings (0 for an unknown token),
// getTokenInfo [tokenId] as null or the serde form of TokenDef (ids as 32 numbers, total_supply a
// bare JSON number beyond 2^53). Balances and allowances start derived from the addresses (agents
// hold some of each token) and can be set through the control API.
import { z } from 'zod';
import type { SimChain, TokenRecord } from './chain.js';
import { address, def, str } from './method-defs.js';
import { RawJson, stringifyExact } from './rawjson.js';
import { hash32 } from './rng.js';

/** Hex as the serde form of [u8; 32]. */
export const bytesOf = (hex: string): number[] => Array.from(Buffer.from(hex, 'hex'));

/** The tokens' state of one chain: what was set through the control API, over the derived start. */
export class TokenBook {
  private readonly balances = new Map<string, bigint>();
  private readonly allowances = new Map<string, bigint>();

  constructor(private readonly chain: SimChain) {}

  token(tokenId: string): TokenRecord | undefined {
    return this.chain.token(tokenId);
  }

  balance(owner: string, tokenId: string): bigint {
    const t = this.token(tokenId);
    if (!t) return 0n;
    const set = this.balances.get(`${owner}:${tokenId}`);
    if (set !== undefined) return set;
    return this.chain.agent(owner) ? (t.totalSupply / 1_000n) * BigInt((hash32(owner + tokenId) % 50) + 1) : 0n;
  }

  allowance(owner: string, spender: string, tokenId: string): bigint {
    if (!this.token(tokenId)) return 0n;
    return this.allowances.get(`${owner}:${spender}:${tokenId}`) ?? 0n;
  }

  setBalance(owner: string, tokenId: string, amount: bigint): void {
    if (!this.token(tokenId)) throw new Error(`unknown token: ${tokenId}`);
    this.balances.set(`${owner}:${tokenId}`, amount);
  }

  setAllowance(owner: string, spender: string, tokenId: string, amount: bigint): void {
    if (!this.token(tokenId)) throw new Error(`unknown token: ${tokenId}`);
    this.allowances.set(`${owner}:${spender}:${tokenId}`, amount);
  }
}

// The state belongs to its chain (nodes of one network share it); held beside it, not a cache.
const books = new WeakMap<SimChain, TokenBook>();

export function tokenBook(chain: SimChain): TokenBook {
  let b = books.get(chain);
  if (!b) books.set(chain, (b = new TokenBook(chain)));
  return b;
}

export function tokenInfoFields(t: TokenRecord): Record<string, unknown> {
  return {
    id: bytesOf(t.tokenId),
    name: t.name,
    symbol: t.symbol,
    decimals: t.decimals,
    total_supply: t.totalSupply,
    issuer: bytesOf(t.issuer),
  };
}

/** Methods of every build. */
export const LEDGER_TOKEN_METHODS = {
  getTokenBalance: def(z.tuple([address, address]).rest(z.unknown()), (ctx, [a, tokenId]) =>
    str(tokenBook(ctx.chain).balance(a, tokenId)),
  ),
  getTokenInfo: def(z.tuple([address]).rest(z.unknown()), (ctx, [tokenId]) => {
    const t = ctx.chain.token(tokenId);
    return t ? new RawJson(stringifyExact(tokenInfoFields(t))) : null;
  }),
};

/** Methods of the current builds. */
export const LEDGER_ALLOWANCE_METHODS = {
  getTokenAllowance: def(z.tuple([address, address, address]).rest(z.unknown()), (ctx, [owner, spender, tokenId]) =>
    str(tokenBook(ctx.chain).allowance(owner, spender, tokenId)),
  ),
};
