// JSON-RPC method table of the simulated node: which build offers which method, the
// positional params each accepts (validated with zod), and plausible results.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { AGENT_BASE_METHODS, AGENT_CURRENT_METHODS } from './ledger-agents.js';
import { DELEGATION_CURRENT_METHODS, DELEGATION_STAKING_METHODS } from './ledger-delegations.js';
import { LEDGER_BASE_METHODS, LEDGER_CURRENT_METHODS, LEDGER_STAKING_METHODS } from './ledger-methods.js';
import { LEDGER_SERVICE_METHODS } from './ledger-services.js';
import { LEDGER_ALLOWANCE_METHODS, LEDGER_TOKEN_METHODS } from './ledger-tokens.js';
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
import type { SimBuild } from './types.js';

export { RpcMethodError, type RpcContext } from './method-defs.js';

const EARLIEST_METHODS = {
  blockNumber: def(none, (ctx) => ctx.height),
  getBlockByNumber: def(z.tuple([height]).rest(z.unknown()), (ctx, [h]) =>
    h > ctx.height ? null : ctx.chain.block(h),
  ),
  ...LEDGER_BASE_METHODS,
  ...AGENT_BASE_METHODS,
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
  faucet: def(oneAddress, (ctx, [a]) => {
    if (!ctx.chain.faucetEnabled) throw new RpcMethodError('faucet is disabled on this network');
    const txHash = createHash('sha256').update(`faucet:${a}:${ctx.height}`).digest('hex');
    ctx.chain.submit(txHash, ctx.height);
    return { txHash, amount: str(100n * 10n ** 9n), recipient: a };
  }),
  // Tokens and services as claw-node 0.5.8 answers them (ledger-tokens.ts, ledger-services.ts).
  ...LEDGER_TOKEN_METHODS,
  ...LEDGER_SERVICE_METHODS,
};

const STAKING_METHODS = {
  ...EARLIEST_METHODS,
  ...LEDGER_STAKING_METHODS,
  ...DELEGATION_STAKING_METHODS,
};

const CURRENT_METHODS = {
  ...STAKING_METHODS,
  ...AGENT_CURRENT_METHODS,
  ...DELEGATION_CURRENT_METHODS,
  ...LEDGER_CURRENT_METHODS,
  ...LEDGER_ALLOWANCE_METHODS,
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
