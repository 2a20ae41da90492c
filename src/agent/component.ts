// Joins the agent platform key check to the daemon (inert while the config has no agentPlatform,
// its code not even loaded): built at assembly, so its metrics exist from the first scrape, and
// started once the server listens, so a daemon that fails to start never calls the platform.
import type { DaemonComponent } from '../daemon/component.js';
import { AGENT_EVIDENCE_NODE } from './evidenceNode.js';
import type { AgentPlatformRunner } from './lifecycle.js';

export function agentPlatformComponent(): DaemonComponent {
  let runner: AgentPlatformRunner | undefined;
  let collectors: typeof import('./platform.js').agentPlatformCollectors | undefined;
  return {
    name: 'agent-platform',
    async open(ctx) {
      const settings = ctx.initial.agentPlatform;
      if (!settings) return;
      const [{ agentPlatformRunner }, platform] = await Promise.all([
        import('./lifecycle.js'),
        import('./platform.js'),
      ]);
      collectors = platform.agentPlatformCollectors;
      runner = agentPlatformRunner(settings, {
        client: ctx.client,
        logger: ctx.logger.child({ component: 'agent-platform' }),
        recordEvidence: ctx.recordEvidence,
      });
    },
    // Registered after open: none while the first config has no agent platform.
    collectors: (registry) => {
      if (runner) collectors?.(registry, runner.checker);
    },
    evidenceNodes: (config) => (config.agentPlatform ? [AGENT_EVIDENCE_NODE] : []),
    signals: () => ({ agentKeyValid: runner?.checker.lastKeyVerdict()?.keyValid ?? undefined }),
    start: () => runner?.start(),
    // First at shutdown, as before any probe is awaited: no new key checks.
    halt: () => runner?.stop(),
  };
}
