// Watched agents: getAgent, getAgentScore and getReputation per agent, and the network's epoch
// (when the decay factor halves next). Alerts: not registered, score below minScore, score dropped.
import * as z from 'zod';
import { AGENT_ALERTS } from '../../alerting/rules/definitions/watchDelegations.js';
import { watchAgentProbe, watchAgentScoreProbe, watchReputationProbe } from '../../probes/watch/agents.js';
import { AGENT_FAMILIES } from '../families.js';
import { defineWatchKind } from '../kind.js';
import { AGENT_PANELS } from '../panels/agent.js';
import { agentView } from '../stakeViews.js';
import { agentState } from '../stakeWords.js';
import type { WatchedAgentView } from '../types.js';

export const agentKind = defineWatchKind<WatchedAgentView>({
  kind: 'agent',
  list: 'agents',
  description: 'Registered agents: registration, score (total and five dimensions), decay, attestations.',
  fields: {
    minScore: z
      .number({ error: 'minScore must be a number of basis points' })
      .int()
      .min(0)
      .max(10_000)
      .optional()
      .meta({ description: 'A total score (basis points, 0..10000) below it alerts.' }),
  },
  resolve: (a) => (a.minScore !== undefined ? { minScore: a.minScore } : {}),
  reads: { watchAgent: watchAgentProbe, watchAgentScore: watchAgentScoreProbe, watchReputation: watchReputationProbe },
  fromNetwork: 'epoch',
  view: agentView,
  families: AGENT_FAMILIES,
  state: agentState,
  alerts: AGENT_ALERTS,
  panels: AGENT_PANELS,
});
