// The alert state file while an alert is pending, with a fake clock: written at least once a
// minute, so a restart tells a short outage (pending keeps its start) from a long one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findDefinition } from '../../src/alerting/rules/definitions/index.js';
import { AlertingRuntime, type AlertingDeps } from '../../src/alerting/runtime.js';
import type { AlertingSettings } from '../../src/alerting/settings.js';
import { loadAlertState } from '../../src/alerting/notify/stateFile.js';
import { DEFAULT_TIMING } from '../../src/alerting/notify/routing.js';
import { FAILURE_REASONS, type FailureReason } from '../../src/domain.js';
import { createLogger } from '../../src/logger.js';
import { Secrets } from '../../src/redact.js';
import type { FleetSnapshot } from '../../src/state/snapshot.js';
import { onlyRules } from '../support/alertingDaemon.js';
import { waitFor } from '../support/processes.js';

const S = 1000;
const M = 60 * S;
const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
const zero = Object.fromEntries(FAILURE_REASONS.map((r) => [r, 0])) as Record<FailureReason, number>;
const down: FleetSnapshot = {
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

describe('a pending alert in the state file', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lfe-runtime-pending-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const settings: AlertingSettings = {
    stateDir: dir,
    evaluationIntervalMs: 15 * S,
    runbookBase: 'alerts/RUNBOOKS.md',
    rules: onlyRules({ LedgerNodeDown: { enabled: true, forMs: 2 * 60 * M } }),
    routing: { ...DEFAULT_TIMING, groupBy: ['alertname'], routes: [], receivers: [] },
    receivers: [],
    maintenance: [],
  };
  let clock = T0;
  const deps: AlertingDeps = {
    logger: createLogger({ level: 'silent' }),
    secrets: new Secrets(),
    snapshot: () => down,
    signals: () => ({ pollOverruns: new Map(), evidenceWriteErrors: 0 }),
    ready: () => true,
    sendFor: () => async () => ({ ok: true, retryable: false }),
    defaultExternalUrl: 'http://127.0.0.1:9715',
    instance: 'exp-1',
    definitions: [findDefinition('LedgerNodeDown')!],
    clock: { wall: () => clock, mono: () => clock },
  };
  const savedAt = () =>
    waitFor('the state file', async () => (await loadAlertState(dir)).state?.savedAt, {
      timeoutMs: 5_000,
      intervalMs: 10,
    });
  const savedBy = (t: number) =>
    waitFor(
      `a state saved at ${t - T0} ms`,
      async () => ((await loadAlertState(dir)).state?.savedAt === t ? t : undefined),
      { timeoutMs: 5_000, intervalMs: 10 },
    );

  it('is written each minute it stays pending, and a restart 5 s after 70 minutes keeps its start', async () => {
    const first = new AlertingRuntime(settings, deps);
    await first.start();
    expect(await savedAt()).toBe(T0);
    clock = T0 + 30 * S; // same minute, nothing changed: not written again
    first.evaluate();
    clock = T0 + 90 * S;
    first.evaluate();
    await savedBy(T0 + 90 * S);
    for (let t = T0 + 2 * M; t <= T0 + 70 * M; t += 15 * S) {
      clock = t;
      first.evaluate();
    }
    await savedBy(T0 + 70 * M);
    expect(first.list()).toMatchObject([
      { name: 'LedgerNodeDown', state: 'pending', activeAt: new Date(T0).toISOString() },
    ]);
    // A kill now (no shutdown save), and a start 5 s later: the outage was 5 s, not 70 minutes.
    clock = T0 + 70 * M + 5 * S;
    const second = new AlertingRuntime(settings, deps);
    await second.start();
    expect(second.list()).toMatchObject([
      { name: 'LedgerNodeDown', state: 'pending', activeAt: new Date(T0).toISOString() },
    ]);
    await second.stop();
    await first.stop();
  });
});
