// Pure parsers of what real nodes answer about an agent (claw-node 0.5.8, reference-node-facts.md):
// getAgent (null: not registered; the address as 32 numbers), getAgentScore (always an object of
// integers 0..10000, also for an unregistered address) and getReputation (every attestation ever
// made about it). A wrong shape is an invalid response for that one read.
import { count, describe, invalid, isObject } from '../parse.js';
import { bytes32Hex } from './parse.js';

export type AgentIdentity = { registered: false } | { registered: true; name: string; registeredAt: number };

export function parseAgent(result: unknown, address: string): AgentIdentity {
  if (result === null) return { registered: false };
  if (!isObject(result)) throw invalid(`getAgent: expected an object or null, got ${describe(result)}`);
  if (bytes32Hex(result.address, 'getAgent.address') !== address)
    throw invalid('getAgent answered for another address');
  if (typeof result.name !== 'string') throw invalid(`getAgent.name is not a string: ${describe(result.name)}`);
  return { registered: true, name: result.name, registeredAt: count(result.registered_at, 'getAgent.registered_at') };
}

export const SCORE_DIMENSIONS = ['activity', 'uptime', 'block_production', 'economic', 'platform'] as const;
export type ScoreDimension = (typeof SCORE_DIMENSIONS)[number];

/** Basis points, 0..10000 each. */
export type AgentScore = Record<'total' | ScoreDimension | 'decay_factor', number>;

export function parseAgentScore(result: unknown): AgentScore {
  if (!isObject(result)) throw invalid(`getAgentScore: expected an object, got ${describe(result)}`);
  const out: Partial<AgentScore> = {};
  for (const k of ['total', ...SCORE_DIMENSIONS, 'decay_factor'] as const) {
    const bps = count(result[k], `getAgentScore.${k}`);
    if (bps > 10_000) throw invalid(`getAgentScore.${k} is over 10000 basis points: ${bps}`);
    out[k] = bps;
  }
  return out as AgentScore;
}

export interface Reputation {
  attestations: number;
  scoreSum: number;
}

export function parseReputation(result: unknown): Reputation {
  if (!Array.isArray(result)) throw invalid(`getReputation: expected an array, got ${describe(result)}`);
  let scoreSum = 0;
  result.forEach((r: unknown, i) => {
    const at = `getReputation[${i}]`;
    if (!isObject(r)) throw invalid(`${at}: expected an object, got ${describe(r)}`);
    bytes32Hex(r.from, `${at}.from`);
    const s = r.score;
    if (typeof s !== 'number' || !Number.isInteger(s) || s < -100 || s > 100)
      throw invalid(`${at}.score is not an integer in -100..100: ${describe(s)}`);
    scoreSum += s;
  });
  return { attestations: result.length, scoreSum };
}
