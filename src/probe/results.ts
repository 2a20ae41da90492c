// What happens to each probe result: it is applied to the fleet state, a 5xx answer becomes
// evidence, changes are logged once at debug (failing, recovered; the status board logs one line
// per node state change), and listeners (status history) see it.
import { SYSTEM_CLOCK, toWall, type Clock } from '../clock/clock.js';
import type { EvidenceInput } from '../evidence/record.js';
import type { NodeTarget, ProbeName, ProbeResult } from '../domain.js';
import type { Logger } from '../logger.js';
import type { FleetState, NodeState } from '../state/fleetState.js';
import type { ProberPool } from './probers.js';
import type { ProbeResultListener } from '../daemon/component.js';

export interface ProbeResultDeps {
  state: FleetState;
  probers: ProberPool;
  logger: Logger;
  /** Where 5xx answers go (the evidence store); absent when evidence is off. */
  recordEvidence?: (input: EvidenceInput) => void;
  listeners?: ProbeResultListener[];
  /** The clock pair the state's times are on (its wall clock labels evidence); default the system's. */
  clock?: Clock;
}

/** The scheduler's runProbe: run one probe of one node and handle its result. */
export function probeRunner(deps: ProbeResultDeps): (target: NodeTarget, probe: ProbeName) => Promise<void> {
  return async (target, probe) => {
    const prober = deps.probers.get(target.name);
    if (!prober) return;
    const result = await prober.run(probe);
    const node = deps.state.get(target.name);
    if (!node) return; // removed by a reload while the probe ran
    const lastOk = node.probes.get(probe)?.lastRun?.ok;
    const outcome = deps.state.apply(
      target.name,
      result,
      result.kind === 'failed' ? result.response?.headers['retry-after'] : undefined,
    );
    if (outcome.restarted) {
      prober.resetNamespace();
      deps.logger.info({ node: target.name }, 'node restarted or changed build: re-detecting namespace and methods');
    }
    if (result.kind === 'failed' && result.response && result.response.status >= 500)
      deps.recordEvidence?.(evidenceOf(target, result, node, deps.clock));
    logResult(deps.logger, target, result, lastOk);
    for (const listen of deps.listeners ?? []) {
      try {
        listen(target, result, node);
      } catch (err) {
        deps.logger.error({ err, node: target.name, probe }, 'probe result listener failed');
      }
    }
  };
}

function logResult(log: Logger, target: NodeTarget, result: ProbeResult, lastOk: boolean | undefined): void {
  const probe = result.probe;
  if (result.kind === 'failed') {
    if (lastOk !== false)
      log.debug(
        { node: target.name, probe, reason: result.reason, status: result.httpStatus },
        `probe failed: ${result.message}`,
      );
  } else if (result.kind === 'ok' && lastOk === false) {
    log.debug({ node: target.name, probe }, 'probe recovered');
  } else if (result.kind === 'unsupported') {
    log.debug({ node: target.name, probe }, result.message);
  }
}

/** The evidence record input for a failed probe that got an answer. Its times are wall times: records outlive
 * the process. */
export function evidenceOf(
  target: NodeTarget,
  result: ProbeResult & { kind: 'failed' },
  node: NodeState,
  clock: Clock = SYSTEM_CLOCK,
): EvidenceInput {
  const ps = node.probes.get(result.probe);
  const response = result.response!;
  return {
    node: target.name,
    network: target.network,
    url: target.url,
    probe: result.probe,
    method: response.method,
    status: response.status,
    durationMs: result.durationMs,
    attempt: ps?.consecutiveFailures ?? 1,
    headers: response.headers,
    body: response.body,
    ...(response.truncated ? { bodyTruncated: true } : {}),
    runnerStatus: {
      consecutiveFailures: ps?.consecutiveFailures ?? 1,
      lastSuccess: node.lastSuccessAt === undefined ? null : toWall(clock, node.lastSuccessAt),
    },
  };
}
