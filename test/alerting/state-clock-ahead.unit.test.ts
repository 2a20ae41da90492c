// Times saved by a process whose wall clock ran ahead (corrected at the reboot) never postpone
// an alert: a saved activeAt in the future counts from now, and `for` runs from there.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fingerprint } from '../../src/alerting/rules/labels.js';
import { AlertingRuntime } from '../../src/alerting/runtime.js';
import { ALERT_STATE_FILE } from '../../src/alerting/notify/stateFile.js';
import { ManualClock } from '../../src/clock/clock.js';
import { nodeDownDeps, nodeDownSettings } from '../support/nodeDownRuntime.js';

const S = 1000;
const M = 60 * S;
const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

describe('alert state saved under a clock that ran ahead', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lfe-clock-ahead-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a pending alert saved an hour in the future fires `for` after the restart, not an hour later', async () => {
    const ahead = T0 + 60 * M;
    const labels = { alertname: 'LedgerNodeDown', severity: 'critical', node: 'a', network: 'main' };
    const instance = {
      id: fingerprint(labels),
      alertname: 'LedgerNodeDown',
      labels,
      annotations: {},
      state: 'pending',
      value: 1,
      activeAt: ahead,
    };
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, ALERT_STATE_FILE),
      JSON.stringify({ version: 1, savedAt: ahead, instances: [instance], dispatcher: { log: {}, pushed: {} } }),
    );
    const clock = new ManualClock(T0);
    const settings = nodeDownSettings(dir, 2 * M);
    const deps = nodeDownDeps(clock);
    const runtime = new AlertingRuntime(settings, deps);
    await runtime.start();
    expect(runtime.list()).toMatchObject([
      { name: 'LedgerNodeDown', state: 'pending', activeAt: new Date(T0).toISOString() },
    ]);
    for (let t = 15 * S; t <= 2 * M + 15 * S; t += 15 * S) {
      clock.advance(15 * S);
      runtime.evaluate();
    }
    expect(runtime.list()).toMatchObject([
      { name: 'LedgerNodeDown', state: 'firing', activeAt: new Date(T0).toISOString() },
    ]);
    await runtime.stop();
  });
});
