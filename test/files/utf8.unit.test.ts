// Strict UTF-8 decoding of what the exporter reads back: whole bytes decode as Buffer does; in
// damaged ones each byte of a bad sequence becomes U+0000 and every other byte is kept as it was.
import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAMAGE_MARK, decodeUtf8 } from '../../src/files/utf8.js';

describe('decodeUtf8', () => {
  it('marks a flipped bit, a lone continuation, a cut sequence, an overlong form and a surrogate', () => {
    const cases: Array<[number[], string, number]> = [
      [[0x6e, 0xb1], 'n\u0000', 1],
      [[0x61, 0xe2, 0x82], 'a\u0000\u0000', 1],
      [[0xc0, 0xaf, 0x62], '\u0000\u0000b', 0],
      [[0xed, 0xa0, 0x80], '\u0000\u0000\u0000', 0],
      [[0x78, 0xf0, 0x9f, 0x98, 0x80, 0xff], 'x\u{1F600}\u0000', 5],
    ];
    for (const [bytes, text, at] of cases) expect(decodeUtf8(Buffer.from(bytes))).toEqual({ text, invalidAt: at });
  });

  it('agrees with the platform on what is UTF-8, and changes only the bytes that are not (property)', () => {
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 64 }),
      fc.string({ unit: 'binary' }).map((s) => new Uint8Array(Buffer.from(s, 'utf8'))),
    );
    fc.assert(
      fc.property(bytes, fc.array(fc.nat(), { maxLength: 3 }), (arr, flips) => {
        const buf = Buffer.from(arr.map((b) => (b === 0 ? 1 : b)));
        for (const f of flips) if (buf.length > 0) buf[f % buf.length] = buf[f % buf.length]! ^ 0x80;
        const { text, invalidAt } = decodeUtf8(buf);
        if (isUtf8(buf)) {
          expect(invalidAt).toBeUndefined();
          expect(text).toBe(buf.toString('utf8'));
          return;
        }
        expect(invalidAt).toBeDefined();
        expect(() => new TextDecoder('utf-8', { fatal: true }).decode(buf)).toThrow();
        const back = Buffer.from(text, 'utf8');
        expect(back.length).toBe(buf.length);
        for (let i = 0; i < buf.length; i++) if (back[i] !== buf[i]) expect(back[i]).toBe(0);
        expect(back[invalidAt!]).toBe(DAMAGE_MARK.charCodeAt(0));
      }),
    );
  });
});
