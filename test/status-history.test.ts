// Poll history: bounded ring, uptime windows, and the history file (real files, atomic replace).
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { HISTORY_BYTES, HISTORY_LENGTH, NodeHistory, type PollOutcome } from '../src/status/history.js';
import { loadStatusFile, parseStatus, saveStatusFile, serializeStatus } from '../src/status/persist.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

const H = 3_600_000;

describe('NodeHistory', () => {
  it('keeps the newest 100 entries, oldest first, with what each poll found', () => {
    const h = new NodeHistory();
    for (let i = 0; i < 250; i++) h.add({ at: i * 1000, outcome: i % 3 === 0 ? 'down' : 'up', durationMs: i, reason: i % 3 === 0 ? { code: 'http_proxy', n: 502 } : { code: 'none' } });
    const e = h.entries();
    expect(e).toHaveLength(HISTORY_LENGTH);
    expect(e[0]!.at).toBe(150_000);
    expect(e.at(-1)).toEqual({ at: 249_000, outcome: 'down', durationMs: 249, reason: { code: 'http_proxy', n: 502 } });
    expect(h.entries(3).map((x) => x.at)).toEqual([247_000, 248_000, 249_000]);
    expect(h.buf.byteLength).toBe(HISTORY_BYTES);
  });

  it('computes uptime over 1 h, 24 h and 7 d from bucketed counts, forgetting what left the window', () => {
    const h = new NodeHistory();
    const start = 100 * 24 * H;
    // 48 h ago: one day down; the last 24 h: up, except the last half hour is down.
    for (let t = start - 48 * H; t < start - 24 * H; t += 60_000) h.add({ at: t, outcome: 'down', durationMs: 1, reason: { code: 'refused' } });
    for (let t = start - 24 * H; t < start - H / 2; t += 60_000) h.add({ at: t, outcome: 'up', durationMs: 1, reason: { code: 'none' } });
    for (let t = start - H / 2; t < start; t += 60_000) h.add({ at: t, outcome: 'down', durationMs: 1, reason: { code: 'refused' } });
    expect(h.uptime('1h', start)).toBeGreaterThan(0.4);
    expect(h.uptime('1h', start)).toBeLessThan(0.6);
    expect(h.uptime('24h', start)).toBeGreaterThan(0.95);
    expect(h.uptime('7d', start)).toBeCloseTo((23.5 * 60) / (48 * 60), 1);
    // Eight days later nothing is left in any window.
    expect(h.uptime('7d', start + 8 * 24 * H)).toBeUndefined();
    expect(new NodeHistory().uptime('24h', start)).toBeUndefined();
  });

  it('uptime is always the answered fraction of the polls in the window (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 40 * 60_000 }), fc.constantFrom<PollOutcome>('up', 'degraded', 'down')), { minLength: 1, maxLength: 300 }), (polls) => {
        const h = new NodeHistory();
        const sorted = [...polls].sort((a, b) => a[0] - b[0]);
        for (const [at, outcome] of sorted) h.add({ at, outcome, durationMs: 1, reason: { code: 'none' } });
        const answered = sorted.filter(([, o]) => o !== 'down').length;
        expect(h.uptime('24h', 40 * 60_000)).toBeCloseTo(answered / sorted.length, 10);
      }),
      { numRuns: 200 },
    );
  });
});

describe('status file', () => {
  it('round-trips history, status and events through an atomically replaced file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'status-file-'));
    dirs.push(dir);
    const path = join(dir, 'sub', 'status-history.json');
    const h = new NodeHistory();
    for (let i = 0; i < 120; i++) h.add({ at: 1e12 + i * 5000, outcome: i > 110 ? 'down' : 'up', durationMs: 30 + i, reason: i > 110 ? { code: 'timeout', n: 20 } : { code: 'none' } });
    const data = { nodes: [{ name: 'val-eu-1', history: h, status: 'down' as const, since: 1e12 + 555_000 }], events: [{ at: 1e12, kind: 'node_down' as const, node: 'val-eu-1', text: 'val-eu-1 down: timeout after 2 s' }, { at: 1e12 + 60_000, kind: 'node_up' as const, node: 'rpc-flaky', text: 'rpc-flaky flapping: 9 changes in 60 s, now up', changes: 9, firstAt: 1e12 }] };
    await saveStatusFile(path, serializeStatus(data, 1e12));
    await saveStatusFile(path, serializeStatus(data, 1e12 + 1));
    expect((await readdir(join(dir, 'sub'))).sort()).toEqual(['status-history.json']); // no temp file left
    const back = (await loadStatusFile(path))!;
    expect(back.events).toEqual(data.events);
    expect(back.nodes[0]).toMatchObject({ name: 'val-eu-1', status: 'down', since: 1e12 + 555_000 });
    expect(back.nodes[0]!.history.entries()).toEqual(h.entries());
    expect(back.nodes[0]!.history.uptime('1h', 1e12 + 600_000)).toBe(h.uptime('1h', 1e12 + 600_000));
    expect(await loadStatusFile(join(dir, 'missing.json'))).toBeUndefined();
  });

  it('rejects a damaged file with the path and what is wrong', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'status-file-'));
    dirs.push(dir);
    const path = join(dir, 'status-history.json');
    await writeFile(path, '{"version":1,"savedAt":1,"nodes":[{"name":"a","head":0,"count":0,"fineId":0,"coarseId":0,"data":"AAAA"}],"events":[]}');
    await expect(loadStatusFile(path)).rejects.toThrow(`${path}: nodes.a: history has 3 bytes, expected ${HISTORY_BYTES}`);
    await writeFile(path, '{"version":1,"savedAt":1,"nodes":[{"name":"a","head":500}],"events":[]}');
    await expect(loadStatusFile(path)).rejects.toThrow(/nodes\.0\.head/);
    expect(() => parseStatus('{"version":2}')).toThrow(/version/);
    expect(await readFile(path, 'utf8')).toContain('"head":500'); // a bad file is left for inspection
  });
});
