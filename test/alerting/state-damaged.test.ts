// A damaged alert state file is set aside under a timestamped name (never written over), the
// log names where it went, what was recovered and what cannot be proved, and only the newest
// copies are kept. (What a salvage recovers: state-salvage.test.ts.)
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_STATE_FILE } from '../../src/alerting/notify/stateFile.js';
import type { Daemon } from '../../src/daemon/index.js';
import { DAMAGED_COPIES_KEPT } from '../../src/files/setAside.js';
import { SimFleet } from '../../src/sim/index.js';
import { waitFor } from '../support/processes.js';
import {
  alertingFleetConfig,
  closeAlertingRig,
  nodeDownToWebhook,
  startAlertingDaemon,
  startWebhook,
} from '../support/alertingDaemon.js';

const DAMAGED =
  '{"version":1,"savedAt":1764255600000,"instances":[{"id":"a1","alertname":"LedgerNodeDown","labels":{"node":"dmg-2"';

describe('a damaged alert state file', () => {
  const rig: { dir?: string; fleet?: SimFleet; daemon?: Daemon; receiver?: Server } = {};
  let stateDir = '';
  let log: () => string = () => '';

  beforeAll(async () => {
    rig.dir = mkdtempSync(path.join(tmpdir(), 'lfe-state-damaged-'));
    rig.fleet = await SimFleet.start([{ name: 'dmg-1', network: 'dmg', build: 'current', peers: 5 }], {
      host: '127.0.0.1',
      blockTimeMs: 500,
    });
    const hook = await startWebhook(() => undefined);
    rig.receiver = hook.server;
    const alerting = nodeDownToWebhook(rig.dir, hook.url);
    stateDir = alerting.stateDir;
    mkdirSync(stateDir, { recursive: true });
    writeFileSync(path.join(stateDir, ALERT_STATE_FILE), DAMAGED);
    // Copies set aside at earlier starts, oldest first.
    for (let i = 0; i < DAMAGED_COPIES_KEPT + 1; i++)
      writeFileSync(path.join(stateDir, `${ALERT_STATE_FILE}.damaged-2026-01-0${i + 1}T00-00-00.000Z`), `old ${i}`);
    const config = alertingFleetConfig(rig.fleet.nodes, {
      dir: rig.dir,
      network: 'dmg',
      intervalMs: 250,
      timeoutMs: 200,
      concurrency: 2,
      maxUpstreamSeries: 100,
      alerting,
    });
    const started = await startAlertingDaemon(config);
    rig.daemon = started.daemon;
    log = started.log;
  }, 30_000);

  afterAll(() => closeAlertingRig(rig));

  it('is kept under a timestamped name, logged with its path, and a fresh file is written beside it', async () => {
    const copies = () =>
      readdirSync(stateDir)
        .filter((f) => f.startsWith(`${ALERT_STATE_FILE}.damaged-`))
        .sort();
    const fresh = copies().find((f) => !f.startsWith(`${ALERT_STATE_FILE}.damaged-2026-01-`));
    expect(fresh).toMatch(/^alerts\.json\.damaged-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z$/);
    expect(readFileSync(path.join(stateDir, fresh!), 'utf8')).toBe(DAMAGED);
    expect(copies()).toHaveLength(DAMAGED_COPIES_KEPT);
    expect(copies()).not.toContain(`${ALERT_STATE_FILE}.damaged-2026-01-01T00-00-00.000Z`);
    expect(log()).toContain(`kept as ${path.join(stateDir, fresh!)}`);
    // Cut inside its first instance, before any notification log: nothing recovered but the save time.
    expect(log()).toMatch(
      /recovered 0 notification log entries, 0 unconfirmed notifications, 0 alertmanager pushes and 0 alert instances \(saved 2025-11-27T15:00:00.000Z\)/,
    );
    expect(log()).toMatch(
      /cannot be proved: notification log entries after the cut are lost: an alert not in the recovered log/,
    );
    await waitFor(
      'a fresh state file',
      async () =>
        existsSync(path.join(stateDir, ALERT_STATE_FILE)) &&
        readFileSync(path.join(stateDir, ALERT_STATE_FILE), 'utf8') !== DAMAGED
          ? true
          : undefined,
      { timeoutMs: 10_000 },
    );
    expect(JSON.parse(readFileSync(path.join(stateDir, ALERT_STATE_FILE), 'utf8'))).toMatchObject({
      version: 1,
      instances: [],
    });
  }, 20_000);
});
