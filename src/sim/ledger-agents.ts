// Agents of a simulated network as claw-node 0.5.8 answers them (reference-node-facts.md):
// getAgent (null, or AgentIdentity with the address as 32 numbers and registered_at),
// getAgentScore (ALWAYS an object of integers in basis points; total = weighted sum of the five
// dimensions x decay, the decay halving every 2,880 epochs since registration with a floor of
// 10) and getReputation (every attestation about the address, addresses as 32 numbers). The
// agents start from the chain's draws; control actions unregister one, set its dimensions or
// its decay.
import type { SimChain } from './chain.js';
import { def, oneAddress, type RpcContext } from './method-defs.js';
import { MIN_VALIDATOR_STAKE, stakeOf } from './ledger-validators.js';
import { hash32 } from './rng.js';

export const DIMENSIONS = ['activity', 'uptime', 'block_production', 'economic', 'platform'] as const;
export type Dimension = (typeof DIMENSIONS)[number];
/** Epochs between two halvings of the decay factor; its floor, in basis points (~0.001). */
export const HALVING_EPOCHS = 2_880;
const DECAY_FLOOR = 10;

export interface AgentState {
  address: string;
  name: string;
  registeredAt: number;
  serviceType: string;
  registered: boolean;
  dimensions: Record<Dimension, number>;
  /** A fixed decay factor (bps) set by control; absent: from the epochs since registration. */
  decayFactor?: number;
}

const byChain = new WeakMap<SimChain, Map<string, AgentState>>();

export function agentsOf(chain: SimChain): Map<string, AgentState> {
  let m = byChain.get(chain);
  if (!m) {
    m = new Map();
    for (const a of chain.agents) {
      const h = hash32(`score:${a.address}`);
      m.set(a.address, {
        ...a,
        registered: true,
        // Most agents score well: 5,000..10,000 per dimension.
        dimensions: {
          activity: 5_000 + (h % 5_001),
          uptime: 5_000 + ((h >>> 3) % 5_001),
          block_production: 5_000 + ((h >>> 6) % 5_001),
          economic: 5_000 + ((h >>> 9) % 5_001),
          platform: 5_000 + ((h >>> 12) % 5_001),
        },
      });
    }
    byChain.set(chain, m);
  }
  return m;
}

/** Bytes of a 64-hex address, as serde writes [u8; 32]. */
export const bytesOf = (hex: string): number[] => Array.from(Buffer.from(hex, 'hex'));

export function decayOf(a: AgentState, epoch: number, epochBlocks: number): number {
  if (a.decayFactor !== undefined) return a.decayFactor;
  const halvings = Math.floor(Math.max(0, epoch - Math.floor(a.registeredAt / epochBlocks)) / HALVING_EPOCHS);
  return Math.max(DECAY_FLOOR, Math.floor(10_000 / 2 ** Math.min(halvings, 20)));
}

export function agentScore(chain: SimChain, address: string): Record<string, number> {
  const a = agentsOf(chain).get(address);
  if (!a?.registered)
    return { total: 0, activity: 0, uptime: 0, block_production: 0, economic: 0, platform: 0, decay_factor: 10_000 };
  const ledger = chain.ledger();
  const v = ledger.validators.get(address);
  const d = a.dimensions;
  // Validators (stake >= 10,000 tokens): 30/25/20/15/10; others 55% activity, 27% economic, 18% platform.
  const weighted =
    v && stakeOf(v) >= MIN_VALIDATOR_STAKE
      ? 0.3 * d.activity + 0.25 * d.uptime + 0.2 * d.block_production + 0.15 * d.economic + 0.1 * d.platform
      : 0.55 * d.activity + 0.27 * d.economic + 0.18 * d.platform;
  const decay = decayOf(a, ledger.epoch, ledger.epochBlocks);
  return { total: Math.floor((weighted * decay) / 10_000), ...d, decay_factor: decay };
}

function reputation(ctx: RpcContext, address: string): Array<Record<string, unknown>> {
  const a = agentsOf(ctx.chain).get(address);
  if (!a) return [];
  const others = [...agentsOf(ctx.chain).values()].filter((x) => x.address !== address).slice(0, hash32(address) % 4);
  return others.map((o, i) => ({
    from: bytesOf(o.address),
    to: bytesOf(address),
    category: 'service_quality',
    score: (hash32(o.address + address) % 201) - 100,
    platform: 'clawarena',
    memo: `attested by ${o.name}`,
    block_height: Math.max(1, a.registeredAt + 100 * (i + 1)),
  }));
}

/** An agent worth watching (the demo's pick): the first registered one. */
export function agentTarget(chain: SimChain): string | undefined {
  return [...agentsOf(chain).values()].find((a) => a.registered)?.address;
}

/** Methods of every build. */
export const AGENT_BASE_METHODS = {
  getAgent: def(oneAddress, (ctx, [a]) => {
    const agent = agentsOf(ctx.chain).get(a);
    return agent?.registered
      ? {
          address: bytesOf(agent.address),
          name: agent.name,
          metadata: { kind: agent.serviceType },
          registered_at: agent.registeredAt,
        }
      : null;
  }),
  getReputation: def(oneAddress, (ctx, [a]) => reputation(ctx, a)),
};

/** Methods of the current builds (0.5.x). */
export const AGENT_CURRENT_METHODS = {
  getAgentScore: def(oneAddress, (ctx, [a]) => agentScore(ctx.chain, a)),
};
