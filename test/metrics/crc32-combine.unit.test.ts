// crc32Combine must give what zlib's crc32 gives for the joined bytes, for any lengths (empty
// runs, one byte, lengths past 2^16 and 2^24) and any CRCs.
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32Combine } from '../../src/metrics/crc32Combine.js';

/** Deterministic bytes (xorshift), so a failure reproduces. */
function bytes(n: number, seed: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  let x = seed | 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    b[i] = x & 0xff;
  }
  return b;
}

describe('crc32Combine', () => {
  const lengths = [0, 1, 2, 3, 7, 64, 1000, 65_537, 1 << 20, (1 << 24) + 3];
  for (const la of [0, 5, 70_000]) {
    for (const lb of lengths) {
      it(`joins ${la} and ${lb} bytes`, () => {
        const a = bytes(la, la + 11);
        const b = bytes(lb, lb + 29);
        expect(crc32Combine(crc32(a), crc32(b), lb)).toBe(crc32(Buffer.concat([a, b])));
      });
    }
  }

  it('chains over many pieces as a running CRC does', () => {
    const pieces = Array.from({ length: 50 }, (_, i) => bytes((i * 7919) % 5000, i + 1));
    let crc = 0;
    for (const p of pieces) crc = crc32Combine(crc, crc32(p), p.length);
    expect(crc).toBe(crc32(Buffer.concat(pieces)));
  });
});
