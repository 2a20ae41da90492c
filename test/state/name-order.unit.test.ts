// Names are ordered as String.prototype.localeCompare orders them (src/state/nameOrder.ts), with
// plain names compared without ICU: the two orders agree on every pair, plain or not.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareNames, rootOrderLocale } from '../../src/state/nameOrder.js';

const plain = fc.string({ unit: fc.constantFrom(...'-.0123456789abcdefghijklmnopqrstuvwxyz'), maxLength: 12 });
const mixed = fc.string({ unit: fc.constantFrom(...'-._ 0129aAbBzZéÉ~/'), maxLength: 8 });

describe('compareNames', () => {
  it("orders plain names (lower-case letters, digits, '-', '.') as localeCompare does", () => {
    fc.assert(
      fc.property(plain, plain, (a, b) => Math.sign(compareNames(a, b)) === Math.sign(a.localeCompare(b))),
      { numRuns: 20_000 },
    );
    expect(['b-2', 'b.1', 'a', 'b10', 'b-1', 'b1', 'a-9', '0'].sort(compareNames)).toEqual(
      ['b-2', 'b.1', 'a', 'b10', 'b-1', 'b1', 'a-9', '0'].sort((x, y) => x.localeCompare(y)),
    );
  });

  it('orders any other names as localeCompare does (case, accents, other punctuation)', () => {
    fc.assert(
      fc.property(
        fc.oneof(mixed, plain),
        mixed,
        (a, b) => Math.sign(compareNames(a, b)) === Math.sign(a.localeCompare(b)),
      ),
      { numRuns: 5_000 },
    );
  });

  it('takes the fast path only where the locale cannot tailor the order of plain names', () => {
    expect(rootOrderLocale({})).toBe(true);
    expect(rootOrderLocale({ LANG: 'C.UTF-8' })).toBe(true);
    expect(rootOrderLocale({ LANG: 'en_US.UTF-8' })).toBe(true);
    expect(rootOrderLocale({ LANG: 'POSIX' })).toBe(true);
    // Danish sorts "aa" after "z", Lithuanian "y" between "i" and "k".
    expect(rootOrderLocale({ LANG: 'da_DK.UTF-8' })).toBe(false);
    expect(rootOrderLocale({ LANG: 'en_US.UTF-8', LC_ALL: 'lt_LT.UTF-8' })).toBe(false);
    expect(rootOrderLocale({ LC_MESSAGES: 'sv_SE', LANG: 'en_US' })).toBe(false);
  });
});
