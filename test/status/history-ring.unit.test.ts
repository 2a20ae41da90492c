// The packed poll history: what goes in comes out (times, durations, reasons, order), across
// wrap-around and at the edges of each packed field; the bytes it holds; and the file, which keeps
// the layout of the history before it was packed (a file written by that code loads and is written
// back byte for byte: test/fixtures/status/status-history-772f74b.json was written by that code's
// statusFilePieces, and the .expected.json beside it holds what its NodeHistory showed for it).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HISTORY_BYTES, HISTORY_LENGTH, NodeHistory, type PollEntry } from '../../src/status/history.js';
import { PACKED_BYTES } from '../../src/status/historyRing.js';
import { parseStatus, statusFilePieces } from '../../src/status/persist.js';
import { REASON_CODES, type ReasonCode } from '../../src/status/types.js';

const H = 3_600_000;
const FIXTURE = path.join(import.meta.dirname, '..', 'fixtures', 'status', 'status-history-772f74b.json');
const EXPECTED = path.join(import.meta.dirname, '..', 'fixtures', 'status', 'status-history-772f74b.expected.json');

/** What an entry shows, by the rules the file's layout always had: whole ms to 2^32 - 1, numbers to 65,535. */
function shown(e: PollEntry): PollEntry {
  const u = (x: number, max: number) => Math.max(0, Math.min(max, Math.round(x))) || 0;
  return {
    at: e.at,
    outcome: e.outcome,
    durationMs: u(e.durationMs, 0xffffffff),
    reason: { code: e.reason.code, n: u(e.reason.n ?? 0, 0xffff) },
  };
}

const entryArb = fc.record({
  // Steps of a poll interval, gaps past what 24 bits of ms hold, steps back, fractions of a ms.
  step: fc.oneof(
    fc.integer({ min: 0, max: 20_000 }),
    fc.integer({ min: 0xfff000, max: 0x1001000 }),
    fc.integer({ min: -90_000, max: -1 }),
    fc.double({ min: 0, max: 5_000, noNaN: true }),
  ),
  outcome: fc.constantFrom('up' as const, 'degraded' as const, 'down' as const),
  durationMs: fc.oneof(fc.integer({ min: 0, max: 70_000 }), fc.double({ min: -10, max: 2 ** 33, noNaN: true })),
  code: fc.constantFrom<ReasonCode>(...REASON_CODES),
  n: fc.option(fc.oneof(fc.integer({ min: 0, max: 70_000 }), fc.double({ min: -5, max: 1e6, noNaN: true }))),
});

type Poll = typeof entryArb extends fc.Arbitrary<infer T> ? T : never;

function build(polls: Poll[], start = Date.UTC(2026, 10, 1)) {
  const h = new NodeHistory();
  const added: PollEntry[] = [];
  let at = start;
  for (const p of polls) {
    at += p.step;
    const e: PollEntry = {
      at,
      outcome: p.outcome,
      durationMs: p.durationMs,
      reason: { code: p.code, n: p.n ?? undefined },
    };
    h.add(e);
    added.push(shown(e));
  }
  return { h, added };
}

describe('packed poll history', () => {
  it('gives back the newest 100 entries as added, oldest first, across wrap-around and field edges (property)', () => {
    fc.assert(
      fc.property(fc.array(entryArb, { maxLength: 260 }), fc.integer({ min: 0, max: 120 }), (polls, limit) => {
        const { h, added } = build(polls);
        expect(h.count).toBe(Math.min(HISTORY_LENGTH, added.length));
        expect(h.entries()).toEqual(added.slice(-HISTORY_LENGTH));
        expect(h.entries(limit)).toEqual(limit === 0 ? [] : added.slice(-Math.min(limit, HISTORY_LENGTH)));
      }),
      { numRuns: 300 },
    );
  });

  it('round-trips through the file: entries and uptime, and the same bytes written again (property)', () => {
    fc.assert(
      fc.property(fc.array(entryArb, { maxLength: 160 }), (polls) => {
        const { h } = build(polls);
        const text = [...statusFilePieces({ nodes: [{ name: 'a', history: h }], events: [] }, 1)].join('');
        const back = parseStatus(text).nodes[0]!.history;
        expect(back.entries()).toEqual(h.entries());
        for (const w of ['1h', '24h', '7d'] as const) {
          const now = (h.entries(1)[0]?.at ?? 0) + 30 * 60_000;
          expect(back.uptime(w, now)).toBe(h.uptime(w, now));
        }
        expect([...statusFilePieces({ nodes: [{ name: 'a', history: back }], events: [] }, 1)].join('')).toBe(text);
      }),
      { numRuns: 200 },
    );
  });

  it('writes times turned as they are written, as a turned copy would be written (property)', () => {
    fc.assert(
      fc.property(
        fc.array(entryArb, { maxLength: 140 }),
        fc.integer({ min: -3 * 24 * H, max: 3 * 24 * H }),
        (polls, shiftMs) => {
          const { h } = build(polls);
          const times = { map: (t: number) => t + shiftMs, shiftMs };
          const direct = [...statusFilePieces({ nodes: [{ name: 'a', history: h }], events: [] }, 1, times)].join('');
          const copy = h.mapTimes(times.map, shiftMs);
          expect(direct).toBe([...statusFilePieces({ nodes: [{ name: 'a', history: copy }], events: [] }, 1)].join(''));
          expect(copy.entries()).toEqual(h.entries().map((e) => ({ ...e, at: e.at + shiftMs })));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('holds 1,152 bytes a node, 352 more only while an unanswered poll is in the uptime windows', () => {
    const h = new NodeHistory();
    const t0 = Date.UTC(2026, 10, 1);
    for (let i = 0; i < 500; i++)
      h.add({ at: t0 + i * 15_000, outcome: 'up', durationMs: 30, reason: { code: 'none' } });
    expect(h.heldBytes).toBe(PACKED_BYTES);
    expect(PACKED_BYTES).toBe(1_152);
    h.add({ at: t0 + 500 * 15_000, outcome: 'down', durationMs: 2_000, reason: { code: 'timeout', n: 20 } });
    expect(h.heldBytes).toBe(PACKED_BYTES + 352);
    // Eight days on, the unanswered poll has left the 7-day window: its counters go with it.
    for (let i = 0; i < 200; i++)
      h.add({ at: t0 + 8 * 24 * H + i * 15_000, outcome: 'up', durationMs: 30, reason: { code: 'none' } });
    expect(h.heldBytes).toBe(PACKED_BYTES);
    expect(h.uptime('7d', t0 + 8 * 24 * H + 3_000_000)).toBe(1);
    // The file's layout is the one the history had in memory before: 2,304 bytes.
    expect(HISTORY_BYTES).toBe(2_304);
    expect(h.buf.byteLength).toBe(HISTORY_BYTES);
    // A reason code is kept in 6 bits.
    expect(REASON_CODES.length).toBeLessThanOrEqual(64);
  });

  it('keeps counts a file holds that no poll could make (more answered than polled) as they are', () => {
    const bytes = new Uint8Array(HISTORY_BYTES);
    const v = new DataView(bytes.buffer);
    const fineSlot = Math.floor(1e12 / 600_000) % 7;
    v.setUint16(HISTORY_LENGTH * 16 + fineSlot * 4, 9); // answered
    v.setUint16(HISTORY_LENGTH * 16 + fineSlot * 4 + 2, 3); // polled
    const h = NodeHistory.fromFile(bytes, { head: 0, count: 0, fineId: Math.floor(1e12 / 600_000), coarseId: -1 });
    expect(h.uptime('1h', 1e12)).toBe(3);
    expect(new Uint8Array(h.buf)).toEqual(bytes);
  });
});

describe('a status file written before the history was packed (772f74b)', () => {
  const text = readFileSync(FIXTURE, 'utf8');
  const { savedAt, expected } = JSON.parse(readFileSync(EXPECTED, 'utf8')) as {
    savedAt: number;
    expected: { name: string; entries: PollEntry[]; uptime: Record<string, number | null>; firstAt: number | null }[];
  };

  it('loads with the entries, uptime and first poll that code showed', () => {
    const data = parseStatus(text);
    expect(data.nodes.map((n) => n.name)).toEqual(expected.map((e) => e.name));
    data.nodes.forEach((n, i) => {
      const want = expected[i]!;
      expect(n.history.entries()).toEqual(want.entries);
      expect(n.history.firstAt ?? null).toBe(want.firstAt);
      for (const [key, value] of Object.entries(want.uptime)) {
        const [w, at] = key.split('@') as ['1h' | '24h' | '7d', string];
        expect(n.history.uptime(w, Number(at)) ?? null).toBe(value);
      }
    });
    // The fixture covers a wrapped ring, a gap, a step back, long polls and clamped numbers.
    expect(expected[0]!.entries).toHaveLength(HISTORY_LENGTH);
    expect(expected[0]!.entries.some((e) => e.durationMs > 0xffff)).toBe(true);
  });

  it('is written back byte for byte', () => {
    expect([...statusFilePieces(parseStatus(text), savedAt)].join('')).toBe(text);
  });
});
