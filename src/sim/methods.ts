// JSON-RPC method table of the simulated node: which build offers which method, the
// positional params each accepts (validated with zod), and plausible results.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { AGENT_BASE_METHODS, AGENT_CURRENT_METHODS } from './ledger-agents.js';
import { DELEGATION_CURRENT_METHODS, DELEGATION_STAKING_METHODS } from './ledger-delegations.js';
import { LEDGER_BASE_METHODS, LEDGER_CURRENT_METHODS, LEDGER_STAKING_METHODS } from './ledger-methods.js';
import {
  address,
  def,
  height,
  hexTx,
  none,
  oneAddress,
  RpcMethodError,
  str,
  type MethodDef,
  type RpcContext,
} from './method-defs.js';
import { hash32 } from './rng.js';
import type { SimBuild } from './types.js';

export { RpcMethodError, type RpcContext } from './method-defs.js';

const EARLIEST_METHODS = {
  blockNumber: def(none, (ctx) => ctx.height),
  getBlockByNumber: def(z.tuple([height]).rest(z.unknown()), (ctx, [h]) =>
    h > ctx.height ? null : ctx.chain.block(h),
  ),
  ...LEDGER_BASE_METHODS,
  getTokenBalance: def(z.tuple([address, address]).rest(z.unknown()), (ctx, [a, tokenId]) => {
    const t = ctx.chain.token(tokenId);
    if (!t || !ctx.chain.agent(a)) return '0';
    return str((t.totalSupply / 1_000n) * BigInt((hash32(a + tokenId) % 50) + 1));
  }),
  ...AGENT_BASE_METHODS,
  getServices: def(z.tuple([z.string().nullable().optional()]).rest(z.unknown()), (ctx, [type]) =>
    ctx.chain.agents
      .filter((a) => type == null || a.serviceType === type)
      .map((a) => ({
        provider: a.address,
        serviceType: a.serviceType,
        name: `${a.name} ${a.serviceType}`,
        priceAmount: str(BigInt((hash32(a.address) % 1_000) + 1) * 10n ** 6n),
        active: hash32(a.address) % 5 !== 0,
      })),
  ),
  getTransactionReceipt: def(
    z.tuple([address]).rest(z.unknown()),
    (ctx, [txHash]) => ctx.chain.receipt(txHash, ctx.height) ?? null,
  ),
  sendTransaction: def(z.tuple([hexTx]).rest(z.unknown()), (ctx, [tx]) => {
    const txHash = createHash('sha256').update(Buffer.from(tx, 'hex')).digest('hex');
    ctx.chain.submit(txHash, ctx.height);
    return txHash;
  }),
  getNonce: def(oneAddress, (ctx, [a]) => ctx.chain.nonce(a)),
  getTokenInfo: def(z.tuple([address]).rest(z.unknown()), (ctx, [tokenId]) => {
    const t = ctx.chain.token(tokenId);
    return t
      ? {
          tokenId: t.tokenId,
          name: t.name,
          symbol: t.symbol,
          decimals: t.decimals,
          totalSupply: str(t.totalSupply),
          issuer: t.issuer,
        }
      : null;
  }),
  faucet: def(oneAddress, (ctx, [a]) => {
    if (!ctx.chain.faucetEnabled) throw new RpcMethodError('faucet is disabled on this network');
    const txHash = createHash('sha256').update(`faucet:${a}:${ctx.height}`).digest('hex');
    ctx.chain.submit(txHash, ctx.height);
    return { txHash, amount: str(100n * 10n ** 9n), recipient: a };
  }),
};

const STAKING_METHODS = {
  ...EARLIEST_METHODS,
  ...LEDGER_STAKING_METHODS,
  ...DELEGATION_STAKING_METHODS,
};

const CURRENT_METHODS = {
  ...STAKING_METHODS,
  getTokenAllowance: def(z.tuple([address, address, address]).rest(z.unknown()), (ctx, [owner, spender, tokenId]) =>
    ctx.chain.token(tokenId) && ctx.chain.agent(owner) && ctx.chain.agent(spender)
      ? str(BigInt(hash32(owner + spender) % 1_000) * 10n ** 6n)
      : '0',
  ),
  ...AGENT_CURRENT_METHODS,
  ...DELEGATION_CURRENT_METHODS,
  ...LEDGER_CURRENT_METHODS,
  totalSupply: def(none, (ctx) => str(ctx.chain.totalSupply(ctx.height))),
};

type AnyMethod = MethodDef<z.ZodType>;
const BUILD_METHODS: Record<SimBuild, Record<string, AnyMethod>> = {
  earliest: EARLIEST_METHODS,
  staking: STAKING_METHODS,
  current: CURRENT_METHODS,
};

/** Method names (without namespace) a build offers. */
export function methodsOf(build: SimBuild): string[] {
  return Object.keys(BUILD_METHODS[build]);
}

export const DEFAULT_NAMESPACE: Record<SimBuild, string> = { earliest: 'clw', staking: 'claw', current: 'claw' };
export const DEFAULT_VERSION: Record<SimBuild, string> = { earliest: '0.1.4', staking: '0.3.2', current: '0.5.8' };

export type MethodOutcome = { result: unknown } | { error: { code: number; message: string } };

/** Runs `<namespace>_<name>` for a build; every failure is code -32000, as on real nodes. */
export function callMethod(
  build: SimBuild,
  namespace: string,
  method: string,
  params: unknown,
  ctx: RpcContext,
): MethodOutcome {
  const prefix = `${namespace}_`;
  const name = method.startsWith(prefix) ? method.slice(prefix.length) : undefined;
  const m = name !== undefined && Object.hasOwn(BUILD_METHODS[build], name) ? BUILD_METHODS[build][name] : undefined;
  if (!m) return { error: { code: -32000, message: `method not found: ${method}` } };
  const parsed = m.params.safeParse(params ?? []);
  if (!parsed.success) return { error: { code: -32000, message: 'invalid params' } };
  try {
    return { result: m.run(ctx, parsed.data) };
  } catch (e) {
    return { error: { code: -32000, message: e instanceof RpcMethodError ? e.message : 'internal error' } };
  }
}
