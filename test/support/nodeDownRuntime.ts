// An alerting runtime in this process, no daemon: one node down in a fixed snapshot, only
// LedgerNodeDown enabled, no receivers, the clock the test drives.
import { findDefinition } from '../../src/alerting/rules/definitions/index.js';
import type { AlertingDeps } from '../../src/alerting/runtime.js';
import type { AlertingSettings } from '../../src/alerting/settings.js';
import { DEFAULT_TIMING } from '../../src/alerting/notify/routing.js';
import type { Clock } from '../../src/clock/clock.js';
import { FAILURE_REASONS, type FailureReason } from '../../src/domain.js';
import { createLogger } from '../../src/logger.js';
import { Secrets } from '../../src/redact.js';
import type { FleetSnapshot } from '../../src/state/snapshot.js';
import { onlyRules } from './alertingDaemon.js';

const zero = Object.fromEntries(FAILURE_REASONS.map((r) => [r, 0])) as Record<FailureReason, number>;

/** Node `a` of network `main`, down: its health probe failed three times in a row. */
export const NODE_A_DOWN: FleetSnapshot = {
  nodes: [
    {
      name: 'a',
      network: 'main',
      labels: {},
      up: false,
      probes: [{ probe: 'health', supported: true, failures: zero, consecutiveFailures: 3, backingOff: false }],
    },
  ],
  networks: [{ network: 'main', decimals: 9, nodes: 1, nodesUp: 0, versions: 1 }],
};

/** Only LedgerNodeDown (pending for `forMs`), evaluated every 15 s, no receivers; state in `stateDir`. */
export function nodeDownSettings(stateDir: string, forMs: number): AlertingSettings {
  return {
    stateDir,
    evaluationIntervalMs: 15_000,
    runbookBase: 'alerts/RUNBOOKS.md',
    rules: onlyRules({ LedgerNodeDown: { enabled: true, forMs } }),
    routing: { ...DEFAULT_TIMING, groupBy: ['alertname'], routes: [], receivers: [] },
    receivers: [],
    maintenance: [],
  };
}

/** The runtime's inputs: NODE_A_DOWN always, the exporter ready, log silent, every send accepted. */
export function nodeDownDeps(clock: Clock): AlertingDeps {
  return {
    logger: createLogger({ level: 'silent' }),
    secrets: new Secrets(),
    snapshot: () => NODE_A_DOWN,
    signals: () => ({ pollOverruns: new Map(), evidenceWriteErrors: 0 }),
    ready: () => true,
    sendFor: () => async () => ({ ok: true, retryable: false }),
    defaultExternalUrl: 'http://127.0.0.1:9715',
    instance: 'exp-1',
    definitions: [findDefinition('LedgerNodeDown')!],
    clock,
  };
}
