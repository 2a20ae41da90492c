// Poll history: bounded ring, uptime windows, and the history file (real files, atomic replace).
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { HISTORY_BYTES, HISTORY_LENGTH, NodeHistory, type PollOutcome } from '../../src/status/history.js';
import { writeFileAtomically } from '../../src/files/atomicFile.js';
import {
  loadStatusFile,
  parseStatus,
  statusFilePieces,
  writeStatusFile,
  type StatusFileData,
} from '../../src/status/persist.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

const H = 3_600_000;

describe('NodeHistory', () => {
  it('keeps the newest 100 entries, oldest first, with what each poll found', () => {
    const h = new NodeHistory();
    for (let i = 0; i < 250; i++)
      h.add({
        at: i * 1000,
        outcome: i % 3 === 0 ? 'down' : 'up',
        durationMs: i,
        reason: i % 3 === 0 ? { code: 'http_proxy', n: 502 } : { code: 'none' },
      });
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
    for (let t = start - 48 * H; t < start - 24 * H; t += 60_000)
      h.add({ at: t, outcome: 'down', durationMs: 1, reason: { code: 'refused' } });
    for (let t = start - 24 * H; t < start - H / 2; t += 60_000)
      h.add({ at: t, outcome: 'up', durationMs: 1, reason: { code: 'none' } });
    for (let t = start - H / 2; t < start; t += 60_000)
      h.add({ at: t, outcome: 'down', durationMs: 1, reason: { code: 'refused' } });
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
      fc.property(
        fc.array(
          fc.tuple(fc.integer({ min: 0, max: 40 * 60_000 }), fc.constantFrom<PollOutcome>('up', 'degraded', 'down')),
          { minLength: 1, maxLength: 300 },
        ),
        (polls) => {
          const h = new NodeHistory();
          const sorted = [...polls].sort((a, b) => a[0] - b[0]);
          for (const [at, outcome] of sorted) h.add({ at, outcome, durationMs: 1, reason: { code: 'none' } });
          const answered = sorted.filter(([, o]) => o !== 'down').length;
          expect(h.uptime('24h', 40 * 60_000)).toBeCloseTo(answered / sorted.length, 10);
        },
      ),
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
    for (let i = 0; i < 120; i++)
      h.add({
        at: 1e12 + i * 5000,
        outcome: i > 110 ? 'down' : 'up',
        durationMs: 30 + i,
        reason: i > 110 ? { code: 'timeout', n: 20 } : { code: 'none' },
      });
    const data = {
      nodes: [{ name: 'val-eu-1', history: h, status: 'down' as const, since: 1e12 + 555_000 }],
      events: [
        { at: 1e12, kind: 'node_down' as const, node: 'val-eu-1', text: 'val-eu-1 down: timeout after 2 s' },
        {
          at: 1e12 + 60_000,
          kind: 'node_up' as const,
          node: 'rpc-flaky',
          text: 'rpc-flaky flapping: 9 changes in 60 s, now up',
          changes: 9,
          firstAt: 1e12,
        },
      ],
    };
    await writeStatusFile(path, data, 1e12);
    await writeStatusFile(path, data, 1e12 + 1);
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
    await writeFile(
      path,
      '{"version":1,"savedAt":1,"nodes":[{"name":"a","head":0,"count":0,"fineId":0,"coarseId":0,"data":"AAAA"}],"events":[]}',
    );
    await expect(loadStatusFile(path)).rejects.toThrow(
      `${path}: nodes.a: history has 3 bytes, expected ${HISTORY_BYTES}`,
    );
    await writeFile(path, '{"version":1,"savedAt":1,"nodes":[{"name":"a","head":500}],"events":[]}');
    await expect(loadStatusFile(path)).rejects.toThrow(/nodes\.0\.head/);
    expect(() => parseStatus('{"version":2}')).toThrow(/version/);
    expect(await readFile(path, 'utf8')).toContain('"head":500'); // a bad file is left for inspection
  });

  it('writes, piece by piece, exactly the JSON document of the whole state (property)', () => {
    const reason = fc.constantFrom(
      { code: 'none' as const },
      { code: 'timeout' as const, n: 2 },
      { code: 'http_proxy' as const, n: 502 },
    );
    const nodeArb = fc.record(
      {
        name: fc.string({ minLength: 1, maxLength: 20 }),
        polls: fc.array(
          fc.tuple(fc.integer({ min: 0, max: 1e9 }), fc.constantFrom<PollOutcome>('up', 'degraded', 'down'), reason),
          { maxLength: 120 },
        ),
        status: fc.constantFrom('up' as const, 'down' as const, 'degraded' as const, 'unknown' as const),
        since: fc.double({ noNaN: true, noDefaultInfinity: true }),
      },
      { requiredKeys: ['name', 'polls'] },
    );
    const eventArb = fc.record(
      {
        at: fc.integer(),
        kind: fc.constantFrom('node_down' as const, 'config_accepted' as const),
        text: fc.string({ maxLength: 40 }),
        node: fc.string({ maxLength: 10 }),
      },
      { requiredKeys: ['at', 'kind', 'text'] },
    );
    fc.assert(
      fc.property(
        fc.array(nodeArb, { maxLength: 8 }),
        fc.array(eventArb, { maxLength: 5 }),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        (nodes, events, now) => {
          const data: StatusFileData = {
            nodes: nodes.map((n) => {
              const history = new NodeHistory();
              for (const [at, outcome, r] of [...n.polls].sort((a, b) => a[0] - b[0]))
                history.add({ at, outcome, durationMs: at % 5000, reason: r });
              return { name: n.name, history, status: n.status, since: n.since };
            }),
            events,
          };
          // The format as one JSON.stringify of the whole document (as the file was always written).
          const whole = JSON.stringify({
            version: 1,
            savedAt: now,
            nodes: data.nodes.map((n) => ({
              name: n.name,
              head: n.history.head,
              count: n.history.count,
              fineId: n.history.fineId,
              coarseId: n.history.coarseId,
              firstAt: n.history.firstAt,
              data: Buffer.from(n.history.buf).toString('base64'),
              status: n.status,
              since: n.since,
            })),
            events,
          });
          expect([...statusFilePieces(data, now)].join('')).toBe(whole);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('round-trips a fleet larger than the write buffer, byte for byte the document of the whole state', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'status-file-'));
    dirs.push(dir);
    const path = join(dir, 'status-history.json');
    const nodes = Array.from({ length: 400 }, (_, i) => {
      const history = new NodeHistory();
      for (let k = 0; k < i % 130; k++)
        history.add({
          at: 1e12 + k * 15_000,
          outcome: (i + k) % 7 === 0 ? 'down' : 'up',
          durationMs: k,
          reason: (i + k) % 7 === 0 ? { code: 'refused' } : { code: 'none' },
        });
      return {
        name: `node-é-${i}`,
        history,
        status: i % 3 === 0 ? undefined : ('up' as const),
        since: i % 3 === 0 ? undefined : 1e12 + i,
      };
    });
    const data: StatusFileData = {
      nodes,
      events: [{ at: 1e12, kind: 'config_accepted', text: 'config accepted: 400 nodes' }],
    };
    await writeStatusFile(path, data, 1e12 + 7);
    const text = await readFile(path, 'utf8');
    expect(text.length).toBeGreaterThan(2 * 256 * 1024); // several buffer fills
    expect(text).toBe([...statusFilePieces(data, 1e12 + 7)].join(''));
    const back = (await loadStatusFile(path))!;
    expect(back.events).toEqual(data.events);
    expect(back.nodes.map((n) => [n.name, n.status, n.since])).toEqual(nodes.map((n) => [n.name, n.status, n.since]));
    back.nodes.forEach((n, i) => {
      expect(n.history.entries()).toEqual(nodes[i]!.history.entries());
      expect(n.history.uptime('24h', 1e12 + 3_600_000)).toBe(nodes[i]!.history.uptime('24h', 1e12 + 3_600_000));
    });
  });

  it('leaves the previous file and no temp file when writing fails part way', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'status-file-'));
    dirs.push(dir);
    const path = join(dir, 'status-history.json');
    await writeFileAtomically(path, ['{"old":', 'true}']);
    const failing = (function* () {
      for (let i = 0; i < 200; i++) yield 'x'.repeat(10_000); // ~2 MB: several chunks reach the temp file first
      throw new Error('source failed');
    })();
    await expect(writeFileAtomically(path, failing)).rejects.toThrow('source failed');
    expect(await readFile(path, 'utf8')).toBe('{"old":true}');
    expect(await readdir(dir)).toEqual(['status-history.json']);
    // A piece larger than the buffer is written whole, in order.
    await writeFileAtomically(path, ['a', 'b'.repeat(600_000), 'c']);
    expect(await readFile(path, 'utf8')).toBe(`a${'b'.repeat(600_000)}c`);
  });
});
