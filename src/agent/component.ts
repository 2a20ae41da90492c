// Joins the agent platform key check to the daemon (inert while the config has no agentPlatform):
// built at assembly, so its metrics exist from the first scrape, and started once the server
// listens, so a daemon that fails to start never calls the platform.
import type { DaemonComponent } from '../daemon/component.js';
import { agentPlatformRunner, AGENT_EVIDENCE_NODE, type AgentPlatformRunner } from './lifecycle.js';
import { agentPlatformCollectors } from './platform.js';

export function agentPlatformComponent(): DaemonComponent {
  let runner: AgentPlatformRunner | undefined;
  return {
    name: 'agent-platform',
    open(ctx) {
      const settings = ctx.initial.agentPlatform;
      if (!settings) return;
      runner = agentPlatformRunner(settings, {
        client: ctx.client,
        logger: ctx.logger.child({ component: 'agent-platform' }),
        recordEvidence: ctx.recordEvidence,
      });
    },
    // Registered after open: none while the first config has no agent platform.
    collectors: (registry) => {
      if (runner) agentPlatformCollectors(registry, runner.checker);
    },
    evidenceNodes: (config) => (config.agentPlatform ? [AGENT_EVIDENCE_NODE] : []),
    signals: () => ({ agentKeyValid: runner?.checker.lastKeyVerdict()?.keyValid ?? undefined }),
    start: () => runner?.start(),
    // First at shutdown, as before any probe is awaited: no new key checks.
    halt: () => runner?.stop(),
  };
}
