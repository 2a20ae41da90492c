// The agent platform key check on its own interval; 5xx answers become evidence like a node's.
// Created with the daemon (its metrics need the checker), started only once the server listens,
// so a daemon that fails to start never calls the platform.
import type { AgentPlatformSettings } from '../domain.js';
import type { EvidenceInput } from '../evidence/record.js';
import type { HttpClient } from '../http/client.js';
import type { Logger } from '../logger.js';
import { AGENT_EVIDENCE_NODE } from './evidenceNode.js';
import { AgentPlatformChecker } from './platform.js';

export { AGENT_EVIDENCE_NODE };

export interface AgentPlatformRunner {
  readonly checker: AgentPlatformChecker;
  start(): void;
  stop(): void;
}

export function agentPlatformRunner(
  settings: AgentPlatformSettings,
  deps: { client: HttpClient; logger: Logger; recordEvidence?: (input: EvidenceInput) => void },
): AgentPlatformRunner {
  let failures = 0;
  let lastSuccess: number | null = null;
  const checker = new AgentPlatformChecker(settings, {
    client: deps.client,
    logger: deps.logger,
    onServerError: (info) =>
      deps.recordEvidence?.({
        node: AGENT_EVIDENCE_NODE,
        network: AGENT_EVIDENCE_NODE,
        url: info.url,
        probe: 'agentPlatform',
        method: 'GET /api/agents/me',
        status: info.status,
        durationMs: info.durationMs,
        attempt: failures + 1,
        headers: info.headers,
        body: info.body,
        runnerStatus: { consecutiveFailures: failures + 1, lastSuccess },
      }),
  });
  const run = () =>
    void checker.check().then((c) => {
      if (c.up && c.status !== undefined && c.status < 300) {
        failures = 0;
        lastSuccess = c.at;
      } else failures++;
    });
  let timer: NodeJS.Timeout | undefined;
  return {
    checker,
    start() {
      run();
      timer = setInterval(run, settings.intervalMs);
      timer.unref();
    },
    stop: () => clearInterval(timer),
  };
}
