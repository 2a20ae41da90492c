// A watched delegator and a watched agent as the pipeline sees them, from their inputs (views.ts).
// A delegator's validators are placed against the network's active set and newest block rewards,
// the same reads watched validators use (read once per network). An agent's decay factor halves
// every 2,880 epochs since its registration (reference-node-facts.md). Pure.
import type { ValidatorInfo } from '../domain.js';
import type { AgentIdentity, AgentScore, Reputation } from '../probes/watch/agentParse.js';
import { SCORE_DIMENSIONS } from '../probes/watch/agentParse.js';
import type { Delegation } from '../probes/watch/delegations.js';
import type { BlockRewards } from '../probes/watch/parse.js';
import { readView, tokens, type EntryInputs } from './inputs.js';
import type { DelegationView, WatchedAgentView, WatchedDelegatorView } from './types.js';

/** Epochs between two halvings of an agent's decay factor. */
export const DECAY_HALVING_EPOCHS = 2_880;

const own = <T>(i: EntryInputs, probe: string): T | undefined => i.own[probe]?.data as T | undefined;
const shared = <T>(i: EntryInputs, probe: string): T | undefined => i.networkReads[probe]?.data as T | undefined;

export function delegatorView(i: EntryInputs): WatchedDelegatorView {
  const list = own<Delegation[]>(i, 'watchDelegations');
  const set = shared<ValidatorInfo[]>(i, 'watchValidatorSet');
  const rewards = shared<BlockRewards>(i, 'watchBlockRewards');
  const v: WatchedDelegatorView = { ...i.entry, kind: 'delegator', ...readView(i) };
  // The delegations themselves decide the alerts: without a complete read of them there is no list.
  if (!list || i.own.watchDelegations?.consecutiveFailures) return v;
  const active = set ? new Set(set.map((s) => s.address)) : undefined;
  // An empty pool pays nobody: then "unpaid" says nothing (no value, as for watched validators).
  const paid = rewards?.paid && rewards.entries! > 0 ? new Set(rewards.paid) : undefined;
  if (paid) v.rewardsHeight = rewards!.height;
  v.delegations = list.map((d): DelegationView => {
    const out: DelegationView = {
      validator: d.validator,
      amount: d.amount.toString(),
      tokens: tokens(d.amount, i.decimals),
      commissionRatio: d.commissionBps / 10_000,
    };
    if (active) out.active = active.has(d.validator);
    if (paid && (paid.has(d.validator) || out.active)) out.rewarded = paid.has(d.validator);
    return out;
  });
  return v;
}

export function agentView(i: EntryInputs): WatchedAgentView {
  const agent = own<AgentIdentity>(i, 'watchAgent');
  const score = own<AgentScore>(i, 'watchAgentScore');
  const rep = own<Reputation>(i, 'watchReputation');
  const v: WatchedAgentView = { ...i.entry, kind: 'agent', ...readView(i), epochBlocks: i.epochBlocks };
  if (agent) {
    v.registered = agent.registered;
    if (agent.registered) {
      v.agentName = agent.name;
      v.registeredAt = agent.registeredAt;
      if (i.epoch !== undefined) {
        const since = Math.max(0, i.epoch - Math.floor(agent.registeredAt / i.epochBlocks));
        v.epochsToNextHalving = DECAY_HALVING_EPOCHS - (since % DECAY_HALVING_EPOCHS);
      }
    }
  }
  if (score) {
    v.scores = { total: score.total / 10_000 };
    for (const d of SCORE_DIMENSIONS) v.scores[d] = score[d] / 10_000;
    v.decayRatio = score.decay_factor / 10_000;
  }
  if (rep) {
    v.attestations = rep.attestations;
    v.attestationScoreSum = rep.scoreSum;
  }
  return v;
}
