// The salvage read of a damaged JSON text: only values whose own end is in the text, with no error
// inside, come back, each exactly as written; a value at the cut is never completed.
import { describe, expect, it } from 'vitest';
import { salvageJson, pathKey, type JsonPath, type PathRole } from '../../src/files/jsonSalvage.js';

/** Entries of `items` (array) and `byKey` (object), the top-level `n`; both containers as sections. */
const role = (p: JsonPath): PathRole => {
  if (p.length === 1) return p[0] === 'n' ? 'value' : p[0] === 'items' || p[0] === 'byKey' ? 'section' : undefined;
  return p.length === 2 && (p[0] === 'items' || p[0] === 'byKey') ? 'value' : undefined;
};
const values = (text: string) => salvageJson(text, role).values.map((v) => [v.path.join('.'), v.value]);

describe('salvageJson', () => {
  const full = JSON.stringify({
    n: 1764255600000,
    items: [
      { id: 'abc123', at: 1764255600000 },
      { id: 'def456', tags: ['x', 'y'] },
    ],
    byKey: { 'k\u00001': { at: 5 }, 'k "2"': { at: 6 } },
  });

  it('reads a whole text as JSON.parse does, every section closed and whole', () => {
    const s = salvageJson(full, role);
    expect(s.errors).toBe(0);
    expect(values(full)).toEqual([
      ['n', 1764255600000],
      ['items.0', { id: 'abc123', at: 1764255600000 }],
      ['items.1', { id: 'def456', tags: ['x', 'y'] }],
      ['byKey.k\u00001', { at: 5 }],
      ['byKey.k "2"', { at: 6 }],
    ]);
    expect(s.sections.get(pathKey(['items']))).toEqual({ closed: true, whole: true });
    expect(s.broken).toEqual([]);
  });

  it('never completes the value at the cut: a number cut to fewer digits, an id cut short', () => {
    const atCutNumber = full.slice(0, full.indexOf('1764255600000,"items"') + 8);
    expect(values(atCutNumber)).toEqual([]);
    const inId = full.slice(0, full.indexOf('def456') + 3);
    expect(values(inId)).toEqual([
      ['n', 1764255600000],
      ['items.0', { id: 'abc123', at: 1764255600000 }],
    ]);
    expect(salvageJson(inId, role).broken.map((p) => p.join('.'))).toEqual(['items.1']);
    expect(salvageJson(inId, role).sections.get(pathKey(['items']))).toEqual({ closed: false, whole: false });
  });

  it('an entry whose closing brace is the last character is whole; its open container is not closed', () => {
    const text = full.slice(0, full.indexOf('},{"id":"def456"') + 1);
    expect(values(text).map(([p]) => p)).toEqual(['n', 'items.0']);
    expect(salvageJson(text, role).sections.get(pathKey(['items']))?.closed).toBe(false);
  });

  it('a bad spot drops only the entry it is in; entries after it are still read', () => {
    const text = full.replace('{"at":5}', '{"at":5 "x":1}');
    const s = salvageJson(text, role);
    expect(s.errors).toBeGreaterThan(0);
    expect(values(text).map(([p]) => p)).toEqual(['n', 'items.0', 'items.1', 'byKey.k "2"']);
    expect(s.broken.map((p) => p.join('.'))).toEqual(['byKey.k\u00001']);
    expect(s.sections.get(pathKey(['byKey']))).toEqual({ closed: true, whole: false });
  });

  it('a tail of NUL bytes (a file extended but never written) reads as the cut before it', () => {
    const cut = full.slice(0, full.indexOf(',"byKey"'));
    expect(values(cut + '\u0000'.repeat(64))).toEqual(values(cut));
    expect(values(cut).map(([p]) => p)).toEqual(['n', 'items.0', 'items.1']);
  });

  it('nothing from an empty text or one that is not JSON at all', () => {
    for (const text of ['', '\u0000\u0000', 'garbage', '[1,2,3]'])
      expect(salvageJson(text, role).values, JSON.stringify(text)).toEqual([]);
  });
});
