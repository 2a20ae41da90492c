// The status history file read back: a byte that is not UTF-8 or a time outside the range of a
// Date makes it damaged: set aside (never written over), history started empty, the reason logged;
// a node's name is never read as another.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FleetState } from '../../src/state/fleetState.js';
import { NodeHistory } from '../../src/status/history.js';
import { statusFilePieces } from '../../src/status/persist.js';
import { StatusService } from '../../src/status/service.js';
import { target } from '../support/targets.js';

const T0 = Date.UTC(2026, 10, 28, 12, 0, 0);
const root = mkdtempSync(path.join(tmpdir(), 'lfe-status-bytes-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function savedText(at: number, eventAt = T0 - 1000): string {
  const history = new NodeHistory();
  history.add({ at, outcome: 'up', durationMs: 5, reason: { code: 'none' } });
  const data = {
    nodes: [{ name: 'n1', history, status: 'up' as const, since: T0 - 60_000 }],
    events: [{ at: eventAt, kind: 'node_up' as const, node: 'n1', text: 'n1 up' }],
  };
  return [...statusFilePieces(data, T0)].join('');
}

async function openOn(bytes: Buffer) {
  const dir = mkdtempSync(path.join(root, 'run-'));
  const file = path.join(dir, 'status-history.json');
  writeFileSync(file, bytes);
  const warnings: string[] = [];
  const state = new FleetState([target('n1', { probes: ['health'], intervalMs: 1000, timeoutMs: 500 })]);
  const service = new StatusService({
    logger: { warn: (_o: unknown, m: string) => void warnings.push(m), info: () => undefined } as never,
    fleet: () => state,
    minIntervalMs: () => 1000,
  });
  await service.open(file);
  const nodes = service.board.toFile().nodes.map((n) => n.name);
  const events = service.board.toFile().events.length;
  const aside = readdirSync(dir).filter((f) => f.startsWith('status-history.json.damaged-'));
  const kept = aside.length === 1 ? readFileSync(path.join(dir, aside[0]!)) : undefined;
  await service.close();
  return { nodes, events, kept, warnings, stillThere: existsSync(file) };
}

describe('status history bytes and times read back', () => {
  it('reads a whole file back (the control)', async () => {
    const r = await openOn(Buffer.from(savedText(T0 - 2000)));
    expect(r.kept).toBeUndefined();
    expect(r.events).toBe(1);
    expect(r.warnings).toEqual([]);
  });

  it('a byte that is not UTF-8 sets the file aside, never reads "n\\uFFFD"', async () => {
    const bytes = Buffer.from(savedText(T0 - 2000));
    bytes[bytes.indexOf('"name":"n1"') + 9] = 0xb1;
    const r = await openOn(bytes);
    expect(r.kept?.equals(bytes)).toBe(true);
    expect(r.nodes.join()).not.toContain('\uFFFD');
    expect(r.events).toBe(0);
    expect(r.warnings.join('\n')).toMatch(/not valid UTF-8 at byte \d+/);
  });

  it.each([
    ['an event time', savedText(T0 - 2000, -9e15)],
    ['a poll time in the history', savedText(-9e15)],
  ])('%s outside the Date range sets the file aside', async (_what, text) => {
    const r = await openOn(Buffer.from(text));
    expect(r.kept?.toString('utf8')).toBe(text);
    expect(r.events).toBe(0);
    expect(r.warnings.join('\n')).toMatch(/time/);
  });
});
