// The control API's ledger routes (amounts are u128 decimal strings of base units):
//   GET  /networks                          -> {"networks":[{network, height, epoch, epochBlocks, activeSet, watch}]}
//                                              (watch: validator, miner, account, delegator and agent to watch)
//   GET  /networks/<n>/validators|miners|accounts/<addr> -> that entry's state
//   POST /networks/<n>/validators/<addr>    {"online":false} {"jailed":true} {"commissionBps":900} {"stake":"…"}
//   POST /networks/<n>/miners/<addr>        {"checkins":false} {"register":true} {"pendingRewards":"…"}
//   POST /networks/<n>/accounts/<addr>      {"balance":"…"}
//   POST /networks/<n>/accounts/<addr>/unbond {"amount":"…","validator":"<addr>","releaseHeight":123}
//   POST /networks/<n>/accounts/<addr>/claim
//   POST /networks/<n>/rewards                     {"funded":false}
//   /networks/<n>/delegators/<addr> and /networks/<n>/agents/<addr>: control-stakes.ts
import { z } from 'zod';
import { stakeRoute, stakeTargets } from './control-stakes.js';
import type { ChainControl } from './ledger-control.js';
import { stakeOf } from './ledger-validators.js';
import { minerInfoFields } from './ledger-miners.js';
import { errorReply as error, parseBody as parse } from './controlBody.js';
import { jsonReply, type Reply } from './reply.js';

const u128 = z
  .string()
  .regex(/^[0-9]{1,39}$/)
  .transform((s) => BigInt(s));
const addr = /^[0-9a-f]{64}$/;
const bodies = {
  validators: z
    .object({
      online: z.boolean(),
      jailed: z.boolean(),
      commissionBps: z.number(),
      stake: u128,
      agentScore: z.number(),
    })
    .partial()
    .strict(),
  miners: z.object({ checkins: z.boolean(), register: z.boolean(), pendingRewards: u128 }).partial().strict(),
  accounts: z.object({ balance: u128 }).strict(),
  unbond: z
    .object({
      amount: u128,
      validator: z.string().regex(addr).optional(),
      releaseHeight: z.number().int().nonnegative().optional(),
    })
    .strict(),
  rewards: z.object({ funded: z.boolean() }).strict(),
};

/** Amounts as decimal strings: a control client must not lose digits either. */
const exact = (value: unknown): Reply => ({
  ...jsonReply(null),
  body: JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
});

export function describeNetwork(c: ChainControl): Record<string, unknown> {
  const ledger = c.ledger();
  return {
    network: c.network,
    height: ledger.height,
    epoch: ledger.epoch,
    epochBlocks: ledger.epochBlocks,
    activeSet: ledger.seats.map((s) => ({ address: s.address, weight: s.weight, stake: s.stake.toString() })),
    watch: { ...c.watchTargets(), ...stakeTargets(c.simChain) },
  };
}

function entryState(c: ChainControl, kind: string, address: string): Reply {
  const ledger = c.ledger();
  if (kind === 'validators') {
    const v = ledger.validators.get(address);
    if (!v) return error(404, `unknown validator: ${address}`);
    const rank = ledger.seats.findIndex((s) => s.address === address);
    return exact({
      ...v,
      stake: stakeOf(v),
      active: rank >= 0,
      rank: rank + 1 || null,
      excluded: ledger.isExcluded(address),
    });
  }
  if (kind === 'miners') {
    const m = ledger.miners.get(address);
    return m ? exact({ ...minerInfoFields(m), address, stopped: m.stopped }) : error(404, `unknown miner: ${address}`);
  }
  return exact({ address, balance: ledger.balance(address), unbonding: ledger.unbonding.get(address) ?? [] });
}

function act(c: ChainControl, kind: string, address: string, action: string | undefined, body: string): Reply {
  if (kind === 'validators' && !action) {
    const b = parse(bodies.validators, body);
    if (typeof b === 'string') return error(400, b);
    c.validator(address, {
      online: b.online,
      jailed: b.jailed,
      commissionBps: b.commissionBps,
      stake: b.stake,
      agentScore: b.agentScore,
    });
  } else if (kind === 'miners' && !action) {
    const b = parse(bodies.miners, body);
    if (typeof b === 'string') return error(400, b);
    c.miner(address, b);
  } else if (kind === 'accounts' && !action) {
    const b = parse(bodies.accounts, body);
    if (typeof b === 'string') return error(400, b);
    c.balance(address, b.balance);
  } else if (kind === 'accounts' && action === 'unbond') {
    const b = parse(bodies.unbond, body);
    if (typeof b === 'string') return error(400, b);
    c.unbond(address, b.amount, { validator: b.validator, releaseHeight: b.releaseHeight });
  } else if (kind === 'accounts' && action === 'claim') {
    c.claim(address);
  } else return error(404, 'not found');
  return entryState(c, kind, address);
}

/** parts: the path after /networks, split on "/". */
export function chainRoute(
  networks: ReadonlyMap<string, ChainControl>,
  method: string,
  parts: string[],
  body: string,
): Reply {
  if (parts.length === 0)
    return method === 'GET'
      ? jsonReply({ networks: [...networks.values()].map(describeNetwork) })
      : error(405, 'method not allowed');
  const c = networks.get(parts[0]!);
  if (!c) return error(404, `unknown network: ${parts[0]!}`);
  if (parts.length === 2 && parts[1] === 'rewards') {
    if (method !== 'POST') return error(405, 'method not allowed');
    const b = parse(bodies.rewards, body);
    if (typeof b === 'string') return error(400, b);
    c.rewardPool(b.funded);
    return jsonReply(describeNetwork(c));
  }
  const stakes = stakeRoute(c.simChain, parts[1] ?? '', method, parts.slice(2), body);
  if (stakes) return stakes;
  const [, kind, address, action] = parts;
  if (!kind || !['validators', 'miners', 'accounts'].includes(kind) || !address || parts.length > 4)
    return error(404, 'not found');
  if (!addr.test(address)) return error(400, 'the address must be 64 lowercase hex characters');
  if (method === 'GET' && !action) return entryState(c, kind, address);
  if (method !== 'POST') return error(405, 'method not allowed');
  try {
    return act(c, kind, address, action, body);
  } catch (e) {
    return error(400, (e as Error).message);
  }
}
