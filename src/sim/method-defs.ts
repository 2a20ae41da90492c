// The pieces every simulated method is built from: what a method sees of the answering node,
// its positional params (validated with zod) and its failure, which real nodes answer as -32000.
import { z } from 'zod';
import type { SimChain } from './chain.js';

/** What a method sees of the node that answers it. */
export interface RpcContext {
  chain: SimChain;
  /** The height this node has reached (may lag or be frozen). */
  height: number;
  /** Validators at the end of the set this node does not know of. */
  missingValidators?: number;
}

/** A method failure: real nodes answer every one with code -32000 and a message. */
export class RpcMethodError extends Error {}

/** 64 lowercase hex characters without 0x: anything else is "invalid params", as on real nodes. */
export const address = z.string().regex(/^[0-9a-f]{64}$/);
export const height = z.number().int().nonnegative();
export const hexTx = z.string().regex(/^(?:[0-9a-fA-F]{2})+$/);

// Extra trailing params are ignored, as serde does for the real node's positional tuples.
export const none = z.tuple([]).rest(z.unknown());
export const oneAddress = z.tuple([address]).rest(z.unknown());
export const oneHeight = z.tuple([height]).rest(z.unknown());

export interface MethodDef<S extends z.ZodType> {
  params: S;
  run(ctx: RpcContext, params: z.output<S>): unknown;
}

export function def<S extends z.ZodType>(
  params: S,
  run: (ctx: RpcContext, params: z.output<S>) => unknown,
): MethodDef<S> {
  return { params, run };
}

export const str = (v: bigint): string => v.toString();
