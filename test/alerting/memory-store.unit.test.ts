// The durable look-back on disk (alerting.stateDir/alert-memory.json): what a restart reads back
// is what was written, amounts exact; a damaged file is set aside (never written over), said in
// one error line, and the memory starts empty; writes are atomic and happen when something
// changed, or at most once a minute when only "still the same" moved on.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ALERT_MEMORY_FILE, AlertMemoryStore, TOUCH_SAVE_MS } from '../../src/alerting/notify/memoryStore.js';
import { DurableRanges } from '../../src/alerting/rules/memory.js';
import { ManualClock } from '../../src/clock/clock.js';
import { createLogger } from '../../src/logger.js';
import { Secrets } from '../../src/redact.js';

const DAY = 24 * 3_600_000;

function store(dir: string, clock: ManualClock, lines: string[] = []) {
  const memory = new DurableRanges();
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const logger = createLogger({ level: 'info', destination });
  return {
    memory,
    store: new AlertMemoryStore({ stateDir: () => dir, clock, logger, secrets: new Secrets(), memory }),
  };
}

describe('alert memory file', () => {
  it('reads back what was written (u128 exact), times through the wall clock', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'lfe-memory-'));
    const clock = new ManualClock();
    const a = store(dir, clock);
    const big = 2n ** 128n - 1n;
    a.memory.read('g\u0001v1', big, DAY, clock.mono());
    clock.advance(60_000);
    a.memory.read('g\u0001v1', big - 1n, DAY, clock.mono());
    await a.store.saveIfDue(clock.mono());
    expect(a.memory.changed).toBe(false);
    const b = store(dir, clock);
    await b.store.load();
    expect(b.memory.keys('g')).toEqual(['g\u0001v1']);
    expect(b.memory.read('g\u0001v1', undefined, DAY, clock.mono())).toEqual([big, big - 1n]);
    expect(readdirSync(dir)).toEqual([ALERT_MEMORY_FILE]);
  });

  it('writes a value that only stayed the same at most once a minute', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'lfe-memory-'));
    const clock = new ManualClock();
    const a = store(dir, clock);
    a.memory.read('k', 5n, DAY, clock.mono());
    await a.store.saveIfDue(clock.mono());
    const first = readFileSync(path.join(dir, ALERT_MEMORY_FILE), 'utf8');
    clock.advance(1_000);
    a.memory.read('k', 5n, DAY, clock.mono());
    await a.store.saveIfDue(clock.mono());
    expect(readFileSync(path.join(dir, ALERT_MEMORY_FILE), 'utf8')).toBe(first);
    clock.advance(TOUCH_SAVE_MS);
    a.memory.read('k', 5n, DAY, clock.mono());
    await a.store.saveIfDue(clock.mono());
    expect(readFileSync(path.join(dir, ALERT_MEMORY_FILE), 'utf8')).not.toBe(first);
  });

  it.each([
    ['not JSON', '{"version":1,'],
    [
      'a wrong amount',
      JSON.stringify({ version: 1, savedAt: 1, series: { k: { windowMs: 1, runs: [['-1', 1, 1]] } } }),
    ],
    ['another version', JSON.stringify({ version: 2, savedAt: 1, series: {} })],
  ])('a damaged file (%s) is set aside and reported; the memory starts empty', async (_what, text) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'lfe-memory-'));
    writeFileSync(path.join(dir, ALERT_MEMORY_FILE), text);
    const lines: string[] = [];
    const clock = new ManualClock();
    const a = store(dir, clock, lines);
    await a.store.load();
    expect(a.memory.size).toBe(0);
    const aside = readdirSync(dir).filter((f) => f.startsWith(`${ALERT_MEMORY_FILE}.damaged-`));
    expect(aside).toHaveLength(1);
    expect(readFileSync(path.join(dir, aside[0]!), 'utf8')).toBe(text);
    expect(lines.join('')).toContain('alert memory file damaged');
    // The next write makes a new file beside the copy set aside.
    a.memory.read('k', 1n, DAY, clock.mono());
    await a.store.save();
    expect(readdirSync(dir).sort()).toEqual([ALERT_MEMORY_FILE, aside[0]!]);
  });
});
