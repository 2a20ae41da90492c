// The alert state file while an alert is pending, with a fake clock: written at least once a
// minute, so a restart tells a short outage (pending keeps its start) from a long one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AlertingRuntime } from '../../src/alerting/runtime.js';
import { loadAlertState } from '../../src/alerting/notify/stateFile.js';
import { nodeDownDeps, nodeDownSettings } from '../support/nodeDownRuntime.js';
import { waitFor } from '../support/processes.js';

const S = 1000;
const M = 60 * S;
const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

describe('a pending alert in the state file', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lfe-runtime-pending-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const settings = nodeDownSettings(dir, 2 * 60 * M);
  let clock = T0;
  const deps = nodeDownDeps({ wall: () => clock, mono: () => clock });
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
