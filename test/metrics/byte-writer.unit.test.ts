// ByteWriter hands its bytes to a sink in consecutive pieces while writing goes on (the /metrics
// gzip compresses them meanwhile): every byte exactly once, in order, and a piece once handed
// never changes, also when the writer grows into new memory or goes on in reused memory.
import { describe, expect, it } from 'vitest';
import { ByteWriter, type TakenPiece } from '../../src/metrics/byteWriter.js';

function line(i: number): string {
  return `ledger_probe_success{node="node-${i}",network="mänet",probe="health"} ${i % 2}\n`;
}

describe('ByteWriter sink', () => {
  for (const start of [1024, 1 << 20]) {
    it(`hands every byte once, in order, in pieces of at least everyBytes (initial memory ${start} bytes)`, () => {
      const pieces: Array<{ view: Buffer; copy: Buffer }> = [];
      const take = (b: Buffer) => {
        pieces.push({ view: b, copy: Buffer.from(b) });
        return { crc: 0, length: b.length, compressed: Promise.resolve(b) };
      };
      const out = new ByteWriter(start, undefined, {
        everyBytes: 50_000,
        take,
        takeCompressed: () => expect.unreachable(),
      });
      const range = Buffer.from(Array.from({ length: 500 }, (_, i) => line(i)).join(''));
      for (let i = 0; i < 20_000; i++) {
        out.write(line(i));
        if (i % 1000 === 0) out.writeRange(range, 0, range.length);
      }
      out.write('x'.repeat(40_000)); // a long string goes straight to the buffer
      out.handRest();
      out.handRest(); // nothing new: no empty piece
      const all = out.bytes();
      expect(Buffer.concat(pieces.map((p) => p.view)).equals(all)).toBe(true);
      // Views handed early still show what was handed, after every later write and grow.
      for (const p of pieces) expect(p.view.equals(p.copy)).toBe(true);
      expect(pieces.length).toBeGreaterThan(10);
      for (const p of pieces.slice(0, -1)) expect(p.view.length).toBeGreaterThanOrEqual(50_000);
      expect(pieces.every((p) => p.view.length > 0)).toBe(true);
    });
  }

  it('without a sink writes as before', () => {
    const out = new ByteWriter(16);
    out.write(line(1));
    out.handRest();
    expect(out.bytes().toString()).toBe(line(1));
  });

  it('hands a block over as one piece whatever its size, and a kept block to takeCompressed', async () => {
    const handed: Array<{ kind: 'take' | 'compressed'; text: string }> = [];
    const out = new ByteWriter(64, undefined, {
      everyBytes: 100,
      take: (b) => {
        handed.push({ kind: 'take', text: b.toString() });
        return { crc: 7, length: b.length, compressed: Promise.resolve(Buffer.from(`z(${b.length})`)) };
      },
      takeCompressed: (p) =>
        void handed.push({ kind: 'compressed', text: `${p.compressed.toString()} ${p.length} ${p.crc}` }),
    });
    expect(out.compressing).toBe(true);
    const kept: Array<TakenPiece<Promise<Buffer>>> = [];
    out.write('before ');
    const big = 'b'.repeat(450);
    out.writeBlock(
      () => {
        out.write('block1 ');
        out.writeRange(Buffer.from(big), 0, big.length); // past everyBytes: not cut inside the block
        out.writeBlock(() => out.write('nested ')); // part of the outer block
      },
      undefined,
      (p) => kept.push(p),
    );
    out.writeBlock(() => expect.unreachable(), { crc: 9, length: 7, compressed: Buffer.from('Z2') });
    out.write('after');
    out.handRest();
    expect(handed).toEqual([
      { kind: 'take', text: 'before ' },
      { kind: 'take', text: `block1 ${big}nested ` },
      { kind: 'compressed', text: 'Z2 7 9' },
      { kind: 'take', text: 'after' },
    ]);
    // The kept block is in the sink's output only.
    expect(out.bytes().toString()).toBe(`before block1 ${big}nested after`);
    expect(kept).toHaveLength(1);
    expect(kept[0]!.length).toBe(7 + big.length + 7);
    expect((await kept[0]!.compressed).toString()).toBe(`z(${7 + big.length + 7})`);
    expect(out.reusedBytes).toBe(7);
  });

  it('without a sink writes a block as plain bytes', () => {
    const out = new ByteWriter(16);
    expect(out.compressing).toBe(false);
    out.writeBlock(
      () => out.write('a'),
      { crc: 0, length: 7, compressed: Buffer.from('ignored') },
      () => expect.unreachable(),
    );
    expect(out.bytes().toString()).toBe('a');
    expect(out.reusedBytes).toBe(0);
  });
});
