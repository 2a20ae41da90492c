// Per watched agent: <ns>_getAgent (registered or not, and since when), <ns>_getAgentScore (the
// score's total, its five dimensions and the decay factor) and <ns>_getReputation (attestations).
import type { FanOutProbe } from '../types.js';
import {
  parseAgent,
  parseAgentScore,
  parseReputation,
  type AgentIdentity,
  type AgentScore,
  type Reputation,
} from './agentParse.js';
import { watchedOf, watchInterval } from './entities.js';

const agents = watchedOf('agent');

export const watchAgentProbe: FanOutProbe<AgentIdentity> = {
  target: 'entities',
  method: 'getAgent',
  entities: agents,
  intervalMs: watchInterval,
  parse: (result, e) => parseAgent(result, e.id),
  metrics: [],
};

export const watchAgentScoreProbe: FanOutProbe<AgentScore> = {
  target: 'entities',
  method: 'getAgentScore',
  entities: agents,
  intervalMs: watchInterval,
  parse: (result) => parseAgentScore(result),
  metrics: [],
};

export const watchReputationProbe: FanOutProbe<Reputation> = {
  target: 'entities',
  method: 'getReputation',
  entities: agents,
  intervalMs: watchInterval,
  parse: (result) => parseReputation(result),
  metrics: [],
};
