// The durable alert state on real files: round trip, bounds, atomic replacement, corrupt files.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, chmodSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AlertInstance } from '../../../src/alerting/rules/instance.js';
import {
  ALERT_STATE_FILE,
  MAX_SAVED_INSTANCES,
  loadAlertState,
  saveAlertState,
  serializeAlertState,
} from '../../../src/alerting/notify/stateFile.js';

const dir = mkdtempSync(path.join(tmpdir(), 'lfe-alert-state-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const inst = (i: number, state: AlertInstance['state'] = 'firing'): AlertInstance => ({
  id: `id${i}`,
  alertname: 'LedgerNodeDown',
  labels: { alertname: 'LedgerNodeDown', severity: 'critical', node: `n${i}`, network: 'main' },
  annotations: { summary: `n${i} down` },
  state,
  value: 0,
  activeAt: 1000 + i,
  ...(state !== 'pending' ? { firingSince: 2000 + i } : {}),
  ...(state === 'resolved' ? { resolvedAt: 3000 + i } : {}),
});

describe('alert state file', () => {
  it('round-trips instances and the notification log, written atomically (no temp file left)', async () => {
    const d = path.join(dir, 'ok');
    const state = {
      instances: [inst(1), inst(2, 'pending'), inst(3, 'resolved')],
      dispatcher: {
        log: { 'slack\u00000:{}': { firing: ['id1'], resolved: [], at: 5000 } },
        pushed: { 'am\u0000id1': { at: 6000, status: 'firing' as const } },
        unconfirmed: { 'slack\u00000:{}': { alerts: ['id1'], at: 5000 } },
      },
    };
    await saveAlertState(d, state, 7000);
    expect(readdirSync(d)).toEqual([ALERT_STATE_FILE]);
    const loaded = (await loadAlertState(d)).state!;
    expect(loaded.dispatcher).toEqual(state.dispatcher);
    expect([...loaded.instances].sort((a, b) => a.id.localeCompare(b.id))).toEqual(state.instances);
    // Replaced, not appended.
    await saveAlertState(d, { instances: [], dispatcher: { log: {}, pushed: {} } }, 8000);
    expect((await loadAlertState(d)).state?.instances).toEqual([]);
  });

  it('is bounded: resolved instances go first, then the oldest', () => {
    const many = Array.from({ length: MAX_SAVED_INSTANCES + 10 }, (_, i) => inst(i, i < 20 ? 'resolved' : 'firing'));
    const saved = JSON.parse(serializeAlertState({ instances: many, dispatcher: { log: {}, pushed: {} } }, 0)) as {
      instances: AlertInstance[];
    };
    expect(saved.instances.length).toBe(MAX_SAVED_INSTANCES);
    expect(saved.instances.filter((i) => i.state === 'resolved').length).toBe(10);
  });

  it('a missing file is empty state; corrupt or unreadable files are reported, never thrown', async () => {
    expect(await loadAlertState(path.join(dir, 'none'))).toEqual({});
    const bad = path.join(dir, 'bad');
    mkdirSync(bad);
    writeFileSync(path.join(bad, ALERT_STATE_FILE), '{"version":1,"savedAt":0,"instances":[{"id":');
    const cut = (await loadAlertState(bad)).damaged;
    expect(cut?.why).toMatch(/^not JSON /);
    expect(cut?.text).toBe('{"version":1,"savedAt":0,"instances":[{"id":');
    expect(cut?.mtimeMs).toBeGreaterThan(Date.UTC(2020, 0, 1));
    writeFileSync(
      path.join(bad, ALERT_STATE_FILE),
      JSON.stringify({ version: 1, savedAt: 0, instances: [{ id: 'x' }], dispatcher: { log: {}, pushed: {} } }),
    );
    expect((await loadAlertState(bad)).damaged?.why).toMatch(/^instances\.0\.alertname: /);
    writeFileSync(path.join(bad, ALERT_STATE_FILE), JSON.stringify({ version: 99 }));
    expect((await loadAlertState(bad)).damaged?.why).toMatch(/^version: /);
    if (process.getuid?.() !== 0) {
      chmodSync(path.join(bad, ALERT_STATE_FILE), 0o000);
      expect((await loadAlertState(bad)).problem).toMatch(/cannot read \(EACCES\)/);
    }
    expect(readFileSync(path.join(dir, 'ok', ALERT_STATE_FILE), 'utf8')).toContain('"version":1');
  });
});
