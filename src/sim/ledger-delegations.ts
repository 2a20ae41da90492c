// Delegations of a simulated network as claw-node 0.5.8 answers them (reference-node-facts.md,
// "Delegations, agents, tokens and services"): getUserDelegations lists one entry per validator
// an address delegated to, with the validator's current commission (10000 when none is
// recorded); getStake and getStakeDelegation. The delegations start from the chain's draws and
// change by control actions (a delegation shrunk, removed or added): the validator's delegated
// stake follows, as on the node.
import type { SimChain } from './chain.js';
import { def, oneAddress, str } from './method-defs.js';
import type { Ledger } from './ledger.js';

/** delegator -> validator -> amount (base units); built from the chain's draws on first use. */
type Delegations = Map<string, Map<string, bigint>>;

// State of each chain object (never a cache: a chain is its own state's only key).
const byChain = new WeakMap<SimChain, Delegations>();

export function delegationsOf(chain: SimChain): Delegations {
  let d = byChain.get(chain);
  if (!d) {
    d = new Map();
    for (const x of chain.delegations) {
      let m = d.get(x.delegator);
      if (!m) d.set(x.delegator, (m = new Map<string, bigint>()));
      m.set(x.validator, (m.get(x.validator) ?? 0n) + x.amount);
    }
    byChain.set(chain, d);
  }
  return d;
}

/** The serde form of one address's delegations. */
export function userDelegations(chain: SimChain, address: string): Array<Record<string, unknown>> {
  const ledger = chain.ledger();
  return [...(delegationsOf(chain).get(address) ?? [])].map(([validator, amount]) => ({
    validator,
    amount: str(amount),
    commission_bps: ledger.validators.get(validator)?.commissionBps ?? 10_000,
  }));
}

/**
 * Sets what `delegator` has delegated to `validator` (0 undelegates it): the validator's delegated
 * stake moves by the difference (its place in the set changes at the next epoch boundary).
 */
export function setDelegation(chain: SimChain, delegator: string, validator: string, amount: bigint): bigint {
  if (amount < 0n) throw new Error('amount must not be negative');
  const ledger: Ledger = chain.ledger();
  const v = ledger.validators.get(validator);
  if (!v) throw new Error(`unknown validator: ${validator}`);
  const all = delegationsOf(chain);
  let mine = all.get(delegator);
  if (!mine) all.set(delegator, (mine = new Map<string, bigint>()));
  const before = mine.get(validator) ?? 0n;
  const delegated = v.delegated - before + amount;
  v.delegated = delegated < 0n ? 0n : delegated;
  if (amount === 0n) mine.delete(validator);
  else mine.set(validator, amount);
  ledger.refreshPayouts();
  return amount;
}

/** A delegator worth watching (the demo's pick): the one with the most delegations, then the lowest address. */
export function delegatorTarget(chain: SimChain): string | undefined {
  let best: [string, number] | undefined;
  for (const [address, m] of [...delegationsOf(chain)].sort(([a], [b]) => (a < b ? -1 : 1)))
    if (!best || m.size > best[1]) best = [address, m.size];
  return best?.[0];
}

/** Methods of the staking builds. */
export const DELEGATION_STAKING_METHODS = {
  getStakeDelegation: def(oneAddress, (ctx, [a]) => ctx.chain.ledger().validators.get(a)?.delegatedBy ?? null),
};

/** Methods of the current builds (0.5.x). */
export const DELEGATION_CURRENT_METHODS = {
  getUserDelegations: def(oneAddress, (ctx, [a]) => userDelegations(ctx.chain, a)),
};
