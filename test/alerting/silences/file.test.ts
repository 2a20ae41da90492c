// The silence file in a real directory: a damaged file is set aside (never written over) and the
// silences still whole in it are kept; a failed write is retried until it succeeds.
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.js';
import { Secrets } from '../../../src/redact.js';
import { SilencePersistence } from '../../../src/alerting/silences/persistence.js';
import { loadSilences, SILENCE_FILE, serializeSilences } from '../../../src/alerting/silences/silenceFile.js';
import type { Silence } from '../../../src/alerting/silences/types.js';
import { waitFor } from '../../support/processes.js';

const T0 = Date.UTC(2026, 10, 28, 12);
const silence = (id: string): Silence => ({
  id,
  matchers: [{ name: 'node', value: id, isRegex: false, isEqual: true }],
  startsAt: T0,
  endsAt: T0 + 3_600_000,
  createdBy: 'alice',
  comment: 'c',
  updatedAt: T0,
});

describe('silence file', () => {
  let dir = '';
  afterEach(() => {
    if (dir) {
      chmodSync(dir, 0o700);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a file cut short is set aside and the silences whole before the cut are kept', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'lfe-silence-file-'));
    const text = serializeSilences([silence('a'), silence('b'), silence('c')], T0);
    const cut = text.slice(0, text.indexOf('"id":"c"') + 12);
    writeFileSync(path.join(dir, SILENCE_FILE), cut);
    const loaded = await loadSilences(dir, T0 + 1);
    expect(loaded.silences.map((s) => s.id)).toEqual(['a', 'b']);
    expect(loaded.problem).toMatch(
      /^silence file damaged \(not JSON .*\): kept as .*damaged-.*; 2 silences recovered, 1 lost$/,
    );
    const files = readdirSync(dir);
    expect(files.some((f) => f.startsWith(`${SILENCE_FILE}.damaged-`))).toBe(true);
    expect(files).not.toContain(SILENCE_FILE);
    expect(
      readFileSync(
        path.join(
          dir,
          files.find((f) => f.includes('damaged'))!,
        ),
        'utf8',
      ),
    ).toBe(cut);
  });

  it('a byte that is not UTF-8 makes the file damaged: set aside as it was, the silence holding it lost', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'lfe-silence-file-'));
    const bytes = Buffer.from(serializeSilences([silence('n1'), silence('n2')], T0));
    // "n1" -> "n" + 0xB1: read leniently this would load a silence on node "n\uFFFD".
    bytes[bytes.indexOf('"value":"n1"') + 10] = 0xb1;
    writeFileSync(path.join(dir, SILENCE_FILE), bytes);
    const loaded = await loadSilences(dir, T0 + 1);
    expect(loaded.silences.map((s) => s.matchers[0]!.value)).toEqual(['n2']);
    expect(loaded.problem).toMatch(/^silence file damaged \(not valid UTF-8 at byte \d+\)/);
    const aside = readdirSync(dir).find((f) => f.startsWith(`${SILENCE_FILE}.damaged-`));
    expect(readFileSync(path.join(dir, aside!)).equals(bytes)).toBe(true);
  });

  it('a time outside the range of a Date refuses its silence instead of loading it', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'lfe-silence-file-'));
    const text = serializeSilences([silence('a'), { ...silence('b'), endsAt: 1e300 }], T0);
    writeFileSync(path.join(dir, SILENCE_FILE), text);
    const loaded = await loadSilences(dir, T0 + 1);
    expect(loaded.silences.map((s) => s.id)).toEqual(['a']);
    expect(loaded.problem).toMatch(/not a time \(outside the range of a Date\).*1 silences recovered, 1 lost$/);
  });

  it('a missing file is no silences and no problem', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'lfe-silence-file-'));
    expect(await loadSilences(dir, T0)).toEqual({ silences: [] });
  });

  it('a write that fails is retried until it succeeds, and shown meanwhile', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'lfe-silence-file-'));
    const state = path.join(dir, 'state');
    writeFileSync(state, 'a file where the state dir should be');
    const p = new SilencePersistence({
      stateDir: () => state,
      silences: () => [silence('a')],
      wallNow: () => Date.now(),
      logger: createLogger({ level: 'silent' }),
      secrets: new Secrets(),
      retryFirstMs: 20,
    });
    await p.save();
    expect(p.failures).toBe(1);
    expect(p.problems()[0]).toMatch(/^silences not written since .* \(1 failed writes, retrying\): /);
    rmSync(state);
    await waitFor('a retried write', () => (p.problems().length === 0 ? true : undefined), { timeoutMs: 5_000 });
    expect((await loadSilences(state, T0)).silences.map((s) => s.id)).toEqual(['a']);
    p.stop();
  });
});
