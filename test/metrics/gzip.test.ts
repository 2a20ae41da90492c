// The /metrics gzip body is compressed in pieces on the thread pool and joined into one gzip
// member: zlib and the gzip program (which checks the CRC and length too) must read back exactly
// the body, at every size around the piece boundaries, and a client must not see several members.
import { spawnSync } from 'node:child_process';
import { gunzipSync, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { GZIP_PIECE_BYTES, GzipPieces } from '../../src/metrics/gzip.js';
import { findExecutable } from '../support/prometheus-tools.js';

/** Text like an exposition, varied enough not to compress to nothing (deterministic). */
function body(bytes: number): Buffer {
  let s = '';
  for (let i = 0; s.length < bytes; i++)
    s += `ledger_node_block_height{node="node-${i}",network="mä${i % 7}"} ${(i * 2_654_435_761) % 1_000_003}\n`;
  return Buffer.from(s).subarray(0, bytes);
}

const gzipProgram = findExecutable('gzip');

/** A whole body in pieces of GZIP_PIECE_BYTES, as the /metrics render hands them over. */
function gzipBody(body: Buffer): Promise<Buffer> {
  const gz = new GzipPieces();
  for (let at = 0; at < body.length; at += GZIP_PIECE_BYTES) gz.add(body.subarray(at, at + GZIP_PIECE_BYTES));
  return gz.finish();
}

describe('gzipBody', () => {
  const sizes = [
    0,
    1,
    1000,
    GZIP_PIECE_BYTES - 1,
    GZIP_PIECE_BYTES,
    GZIP_PIECE_BYTES + 1,
    2 * GZIP_PIECE_BYTES + 12_345,
  ];
  for (const size of sizes) {
    it(`reads back a ${size}-byte body exactly, through zlib and the gzip program`, async () => {
      const input = body(size);
      const zipped = await gzipBody(input);
      expect(zipped.subarray(0, 3)).toEqual(Buffer.from([0x1f, 0x8b, 8]));
      expect(gunzipSync(zipped).equals(input)).toBe(true);
      if (!gzipProgram)
        throw new Error('gzip not found (Debian package gzip): needed to check the body with a second decoder');
      const out = spawnSync(gzipProgram, ['-dc'], { input: zipped, maxBuffer: 64 * 1024 * 1024 });
      expect(out.stderr.toString()).toBe('');
      expect(out.status).toBe(0);
      expect(out.stdout.equals(input)).toBe(true);
    });
  }

  it('is one gzip member: one deflate stream across the pieces, compressed to a fraction of the body', async () => {
    const input = body(3 * GZIP_PIECE_BYTES);
    const zipped = await gzipBody(input);
    // Between the 10-byte header and the 8-byte trailer: a single raw deflate stream holding it all.
    expect(inflateRawSync(zipped.subarray(10, zipped.length - 8)).equals(input)).toBe(true);
    expect(zipped.readUInt32LE(zipped.length - 4)).toBe(input.length);
    expect(zipped.length).toBeLessThan(input.length / 3);
  });
});

describe('GzipPieces', () => {
  it('joins pieces of any sizes (empty ones too), added while earlier ones compress, into one member', async () => {
    const input = body(GZIP_PIECE_BYTES + 300_001);
    const cuts = [0, 0, 1, 77, 65_536, 65_536, 1_000_000, GZIP_PIECE_BYTES, input.length];
    const gz = new GzipPieces();
    for (let i = 1; i < cuts.length; i++) gz.add(input.subarray(cuts[i - 1], cuts[i]));
    const zipped = await gz.finish();
    expect(gunzipSync(zipped).equals(input)).toBe(true);
    expect(inflateRawSync(zipped.subarray(10, zipped.length - 8)).equals(input)).toBe(true);
    expect(zipped.readUInt32LE(zipped.length - 4)).toBe(input.length);
    expect(() => gz.add(input)).toThrow(/already finished/);
  });

  it('splices a piece compressed for an earlier member into a later one, between new pieces', async () => {
    const input = body(500_000);
    const [a, b, c] = [input.subarray(0, 123_456), input.subarray(123_456, 400_000), input.subarray(400_000)];
    const earlier = new GzipPieces();
    earlier.add(body(1_000));
    const taken = earlier.add(b);
    await earlier.finish();
    const kept = { crc: taken.crc, length: taken.length, compressed: await taken.compressed };
    expect(kept.length).toBe(b.length);
    const gz = new GzipPieces();
    gz.add(a);
    gz.addCompressed(kept); // b's bytes are not given again: its CRC and length come with it
    gz.add(c);
    const zipped = await gz.finish();
    expect(gunzipSync(zipped).equals(input)).toBe(true); // zlib checks the CRC and length of the whole body
    if (!gzipProgram)
      throw new Error('gzip not found (Debian package gzip): needed to check the body with a second decoder');
    const out = spawnSync(gzipProgram, ['-dc'], { input: zipped, maxBuffer: 64 * 1024 * 1024 });
    expect(out.status).toBe(0);
    expect(out.stdout.equals(input)).toBe(true);
    expect(() => gz.addCompressed(kept)).toThrow(/already finished/);
  });

  it('makes a valid empty member when nothing was added', async () => {
    expect(gunzipSync(await new GzipPieces().finish()).length).toBe(0);
  });
});
