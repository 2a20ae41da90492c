// The methods that read a network's ledger (validators, rewards, miners, balances, unbonding),
// in the shapes claw-node 0.5.8 answers (see spec/reference-node-facts.md).
import { z } from 'zod';
import { def, none, oneAddress, oneHeight, str, type RpcContext } from './method-defs.js';
import { minerInfoFields, type MinerState } from './ledger-miners.js';
import { stakeOf, uptimePct } from './ledger-validators.js';
import { RawJson, stringifyExact } from './rawjson.js';

function validatorDetail(ctx: RpcContext, a: string): Record<string, unknown> | null {
  const ledger = ctx.chain.ledger();
  const v = ledger.validators.get(a);
  if (!v || stakeOf(v) === 0n) return null;
  const seat = ledger.seats.find((s) => s.address === a);
  // The counters reset at each boundary and are absent until the epoch's first block is done.
  const fresh = ledger.height % ledger.epochBlocks === 0;
  return {
    address: v.address,
    stake: str(stakeOf(v)),
    weight: seat?.weight ?? 0,
    agentScore: seat?.agentScore ?? 0,
    commission_bps: v.commissionBps,
    delegatedBy: v.delegatedBy,
    uptime:
      seat && !fresh
        ? {
            produced_blocks: v.produced,
            expected_blocks: v.expected,
            signed_blocks: v.produced,
            uptime_pct: uptimePct(v),
          }
        : null,
    jailed: ledger.isJailed(v),
  };
}

function minerSummary(m: MinerState, totalRewards: bigint): Record<string, unknown> {
  return {
    address: m.address,
    registeredAt: m.registeredAt,
    lastHeartbeat: m.lastHeartbeat,
    active: m.active,
    totalRewards: str(totalRewards),
    blocksRewarded: Number(totalRewards / 10n ** 9n) % 100_000,
  };
}

/** Methods of every build. */
export const LEDGER_BASE_METHODS = {
  getBalance: def(oneAddress, (ctx, [a]) => str(ctx.chain.balance(a))),
};

/** Methods of the staking builds. */
export const LEDGER_STAKING_METHODS = {
  getStake: def(oneAddress, (ctx, [a]) => {
    const v = ctx.chain.ledger().validators.get(a);
    return str(v ? stakeOf(v) : 0n);
  }),
  // Listed under the owner; an entry past its release height stays until claimed.
  getUnbonding: def(oneAddress, (ctx, [a]) =>
    (ctx.chain.ledger().unbonding.get(a) ?? []).map((u) => ({
      address: u.address,
      amount: str(u.amount),
      releaseHeight: u.releaseHeight,
    })),
  ),
  getValidators: def(none, (ctx) => {
    const seats = ctx.chain.ledger().seats;
    return seats
      .slice(0, Math.max(1, seats.length - (ctx.missingValidators ?? 0)))
      .map((s) => ({ address: s.address, stake: str(s.stake), weight: s.weight, agentScore: s.agentScore }));
  }),
};

const minersParams = z
  .tuple([
    z.boolean().nullable().optional(),
    z.number().int().nonnegative().nullable().optional(),
    z.number().int().nonnegative().nullable().optional(),
  ])
  .rest(z.unknown());

/** Methods of the current builds (0.5.x). */
export const LEDGER_CURRENT_METHODS = {
  getValidatorDetail: def(oneAddress, (ctx, [a]) => validatorDetail(ctx, a)),
  getBlockRewards: def(oneHeight, (ctx, [h]) => {
    if (h > ctx.height) return null;
    const entries = ctx.chain.ledger().rewards.at(h);
    return entries
      ? entries.map((e) => ({ recipient: e.recipient, amount: str(e.amount), rewardType: e.rewardType }))
      : null;
  }),
  // The serde form: pending_rewards as a bare JSON number that may exceed 2^53.
  getMinerInfo: def(oneAddress, (ctx, [a]) => {
    const m = ctx.chain.ledger().miners.get(a);
    return m ? new RawJson(stringifyExact(minerInfoFields(m))) : null;
  }),
  getMiners: def(minersParams, (ctx, [activeOnly, limit, offset]) => {
    const drawn = new Map(ctx.chain.miners.map((r) => [r.address, r.totalRewards]));
    const all = [...ctx.chain.ledger().miners.values()]
      .filter((m) => !activeOnly || m.active)
      .map((m) => minerSummary(m, drawn.get(m.address) ?? 0n));
    const from = offset ?? 0;
    return all.slice(from, from + Math.min(limit ?? 100, 500));
  }),
  getMiningStats: def(none, (ctx) => ({
    totalMiners: ctx.chain.ledger().miners.size,
    activeMiners: [...ctx.chain.ledger().miners.values()].filter((m) => m.active).length,
    currentBlockReward: str(ctx.chain.blockReward(ctx.height)),
    miningUpgradeHeight: ctx.chain.miningUpgradeHeight,
    upgraded: ctx.chain.upgraded(ctx.height),
  })),
};
