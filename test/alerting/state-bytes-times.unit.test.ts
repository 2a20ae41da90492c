// What the alert state file says is never trusted beyond what it proves: a byte that is not UTF-8
// makes the file damaged (set aside, salvaged entry by entry; a label is never read as another),
// and a time outside the range of a Date is refused with the entry that holds it, so /api/alerts
// (runtime.list()) never fails on it.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { fingerprint } from '../../src/alerting/rules/labels.js';
import { AlertingRuntime } from '../../src/alerting/runtime.js';
import { ALERT_STATE_FILE } from '../../src/alerting/notify/stateFile.js';
import { ManualClock } from '../../src/clock/clock.js';
import { createLogger } from '../../src/logger.js';
import type { FleetSnapshot } from '../../src/state/snapshot.js';
import { NODE_A_DOWN, nodeDownDeps, nodeDownSettings } from '../support/nodeDownRuntime.js';

const T0 = Date.UTC(2026, 10, 28, 12, 0, 0);
/** Nodes n1 and n2 of network main, both down. */
const BOTH_DOWN: FleetSnapshot = {
  nodes: ['n1', 'n2'].map((name) => ({ ...NODE_A_DOWN.nodes[0]!, name })),
  networks: [{ ...NODE_A_DOWN.networks[0]!, nodes: 2 }],
};
const root = mkdtempSync(path.join(tmpdir(), 'lfe-state-bytes-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function instance(node: string, activeAt: number, firingSince?: number) {
  const labels = { alertname: 'LedgerNodeDown', severity: 'critical', node, network: 'main' };
  return {
    id: fingerprint(labels),
    alertname: 'LedgerNodeDown',
    labels,
    annotations: {},
    state: firingSince === undefined ? 'pending' : 'firing',
    value: 1,
    activeAt,
    ...(firingSince !== undefined ? { firingSince } : {}),
  };
}

async function startOn(bytes: Buffer) {
  const dir = mkdtempSync(path.join(root, 'run-'));
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, ALERT_STATE_FILE), bytes);
  let logged = '';
  const logger = createLogger({
    level: 'info',
    destination: new Writable({ write: (c: Buffer, _e, cb) => ((logged += c.toString('utf8')), cb()) }),
  });
  const clock = new ManualClock(T0);
  const runtime = new AlertingRuntime(nodeDownSettings(dir, 60_000), {
    ...nodeDownDeps(clock),
    logger,
    snapshot: () => BOTH_DOWN,
  });
  await runtime.start();
  return { dir, runtime, log: () => logged };
}

const iso = (t: number) => new Date(t).toISOString();
/** Each listed alert's state and activeAt, by node. */
const states = (runtime: AlertingRuntime) =>
  Object.fromEntries(runtime.list().map((a) => [a.labels.node, [a.state, a.activeAt]]));

const fileWith = (instances: unknown[]) =>
  JSON.stringify({ version: 1, savedAt: T0 - 1000, dispatcher: { log: {}, pushed: {} }, instances });

describe('alert state bytes and times read back', () => {
  it('a byte that is not UTF-8 sets the file aside and drops only the entry it is in', async () => {
    const text = fileWith([instance('n1', T0 - 5000, T0 - 4000), instance('n2', T0 - 5000, T0 - 4000)]);
    const bytes = Buffer.from(text, 'utf8');
    // "n1" -> "n\xB1": one bit flipped, no longer UTF-8 (read as 'utf8' it became "n\uFFFD").
    bytes[bytes.indexOf('"node":"n1"') + 9] = 0xb1;
    const { dir, runtime, log } = await startOn(bytes);
    // n1's saved instance is lost (it fires anew from now); nothing is ever said of "n\uFFFD".
    expect(JSON.stringify(runtime.instances())).not.toContain('\uFFFD');
    expect(states(runtime)).toEqual({ n1: ['pending', new Date(T0).toISOString()], n2: ['firing', iso(T0 - 5000)] });
    const aside = readdirSync(dir).filter((f) => f.startsWith(`${ALERT_STATE_FILE}.damaged-`));
    expect(aside).toHaveLength(1);
    expect(readFileSync(path.join(dir, aside[0]!)).equals(bytes)).toBe(true);
    expect(log()).toMatch(/not valid UTF-8 at byte \d+/);
    expect(log()).toMatch(/1 alert instance\b/);
    await runtime.stop();
  });

  it('a time outside the Date range is refused with its entry: list() (/api/alerts) still works', async () => {
    const text = fileWith([instance('n1', -9e15, -9e15), instance('n2', T0 - 5000, T0 - 4000)]);
    const { dir, runtime, log } = await startOn(Buffer.from(text));
    expect(() => runtime.list()).not.toThrow();
    expect(states(runtime)).toEqual({ n1: ['pending', new Date(T0).toISOString()], n2: ['firing', iso(T0 - 5000)] });
    expect(existsSync(path.join(dir, ALERT_STATE_FILE))).toBe(false);
    expect(log()).toMatch(/instances\.0\.activeAt: .*time/);
    await runtime.stop();
  });

  it('a save time outside the Date range is not believed (its mtime stands in)', async () => {
    const text = JSON.stringify({
      version: 1,
      savedAt: -1e17,
      dispatcher: { log: {}, pushed: {} },
      instances: [instance('n2', T0 - 5000, T0 - 4000)],
    });
    const { runtime, log } = await startOn(Buffer.from(text));
    expect(() => runtime.list()).not.toThrow();
    expect(log()).toMatch(/savedAt/);
    expect(log()).not.toMatch(/saved at an unknown time|Invalid time/);
    await runtime.stop();
  });
});
