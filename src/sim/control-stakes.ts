// The control API's delegation and agent routes (amounts are u128 decimal strings of base units):
//   GET  /networks/<n>/delegators/<addr>  -> {"address", "delegations":[{validator, amount, commission_bps}]}
//   POST /networks/<n>/delegators/<addr>  {"validator":"<addr>","amount":"…"}  (0 undelegates)
//   GET  /networks/<n>/agents/<addr>      -> {"address", "registered", "name", "registeredAt", "score": {…}}
//   POST /networks/<n>/agents/<addr>      {"registered":false} {"dimensions":{"activity":1000}} {"decayFactor":5000}
import { z } from 'zod';
import type { SimChain } from './chain.js';
import { agentScore, agentsOf, agentTarget, DIMENSIONS, type Dimension } from './ledger-agents.js';
import { delegatorTarget, setDelegation, userDelegations } from './ledger-delegations.js';
import { errorReply as error, parseBody as parse } from './controlBody.js';
import { jsonReply, type Reply } from './reply.js';

const bps = z.number().int().min(0).max(10_000);
const bodies = {
  delegators: z
    .object({
      validator: z.string().regex(/^[0-9a-f]{64}$/),
      amount: z
        .string()
        .regex(/^[0-9]{1,39}$/)
        .transform((s) => BigInt(s)),
    })
    .strict(),
  agents: z
    .object({
      registered: z.boolean(),
      dimensions: z
        .object(Object.fromEntries(DIMENSIONS.map((d) => [d, bps])) as Record<Dimension, typeof bps>)
        .partial(),
      decayFactor: bps,
    })
    .partial()
    .strict(),
};

function state(chain: SimChain, kind: 'delegators' | 'agents', address: string): Reply {
  if (kind === 'delegators') return jsonReply({ address, delegations: userDelegations(chain, address) });
  const a = agentsOf(chain).get(address);
  if (!a) return error(404, `unknown agent: ${address}`);
  return jsonReply({
    address,
    registered: a.registered,
    name: a.name,
    registeredAt: a.registeredAt,
    score: agentScore(chain, address),
  });
}

function act(chain: SimChain, kind: 'delegators' | 'agents', address: string, body: string): Reply {
  if (kind === 'delegators') {
    const b = parse(bodies.delegators, body);
    if (typeof b === 'string') return error(400, b);
    setDelegation(chain, address, b.validator, b.amount);
  } else {
    const b = parse(bodies.agents, body);
    if (typeof b === 'string') return error(400, b);
    const a = agentsOf(chain).get(address);
    if (!a) return error(404, `unknown agent: ${address}`);
    if (b.registered !== undefined) a.registered = b.registered;
    if (b.dimensions) Object.assign(a.dimensions, b.dimensions);
    if (b.decayFactor !== undefined) a.decayFactor = b.decayFactor;
  }
  return state(chain, kind, address);
}

/** `rest`: the path after /networks/<n>/<kind>; undefined when `kind` is not one of these routes. */
export function stakeRoute(
  chain: SimChain,
  kind: string,
  method: string,
  rest: readonly string[],
  body: string,
): Reply | undefined {
  if (kind !== 'delegators' && kind !== 'agents') return undefined;
  const [address] = rest;
  if (!address || rest.length > 1) return error(404, 'not found');
  if (!/^[0-9a-f]{64}$/.test(address)) return error(400, 'the address must be 64 lowercase hex characters');
  if (method === 'GET') return state(chain, kind, address);
  if (method !== 'POST') return error(405, 'method not allowed');
  try {
    return act(chain, kind, address, body);
  } catch (e) {
    return error(400, (e as Error).message);
  }
}

/** A delegator and an agent worth watching (beside ChainControl.watchTargets in GET /networks). */
export function stakeTargets(chain: SimChain): { delegator?: string; agent?: string } {
  const delegator = delegatorTarget(chain);
  const agent = agentTarget(chain);
  return { ...(delegator && { delegator }), ...(agent && { agent }) };
}
