// The kept deflate streams compress piece after piece from a reset state, large pieces get a
// stream of their own: every piece's compressed form must inflate on its own (no reference to an
// earlier piece's bytes) and end byte-aligned, not final, however many pieces are queued at once
// and whatever their order of completion.
import { constants, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { deflatePiece } from '../../src/metrics/deflaters.js';

/** Text like an exposition, where a later piece would gladly refer back to an earlier one. */
function piece(i: number, bytes: number): Buffer {
  let s = '';
  for (let k = 0; s.length < bytes; k++)
    s += `ledger_probe_success{node="node-${k % 50}",network="mainnet",probe="p${i % 3}"} ${k % 2}\n`;
  return Buffer.from(s).subarray(0, bytes);
}

describe('deflatePiece', () => {
  it('compresses each of many pieces queued at once to a form that inflates alone', async () => {
    const pieces = Array.from({ length: 40 }, (_, i) => piece(i, [1, 500, 70_000, 300_000, 700_000][i % 5]!));
    const compressed = await Promise.all(pieces.map((p) => deflatePiece(p)));
    compressed.forEach((c, i) => {
      // Not final: read up to its end without asking for the end of the stream.
      expect(inflateRawSync(c, { finishFlush: constants.Z_SYNC_FLUSH }).equals(pieces[i]!)).toBe(true);
      // A sync flush ends it: an empty stored block, 00 00 ff ff.
      expect(c.subarray(c.length - 4)).toEqual(Buffer.from([0, 0, 0xff, 0xff]));
    });
    // Same bytes, same compressed form: nothing carried over from the pieces before.
    expect((await deflatePiece(pieces[2]!)).equals(compressed[2]!)).toBe(true);
    expect(compressed[2]!.length).toBeLessThan(pieces[2]!.length / 5);
  });

  it('joins pieces into one stream that inflates to the whole', async () => {
    const pieces = [piece(0, 100_000), piece(1, 3), piece(2, 250_000)];
    const parts = await Promise.all(pieces.map((p) => deflatePiece(p)));
    const stream = Buffer.concat([...parts, Buffer.from([0x03, 0x00])]);
    expect(inflateRawSync(stream).equals(Buffer.concat(pieces))).toBe(true);
  });
});
