// ByteWriter hands its bytes to a sink in consecutive pieces while writing goes on (the /metrics
// gzip compresses them meanwhile): every byte exactly once, in order, and a piece once handed
// never changes, also when the writer grows into new memory or goes on in reused memory.
import { describe, expect, it } from 'vitest';
import { ByteWriter } from '../src/metrics/byteWriter.js';

function line(i: number): string {
  return `ledger_probe_success{node="node-${i}",network="mänet",probe="health"} ${i % 2}\n`;
}

describe('ByteWriter sink', () => {
  for (const start of [1024, 1 << 20]) {
    it(`hands every byte once, in order, in pieces of at least everyBytes (initial memory ${start} bytes)`, () => {
      const pieces: Array<{ view: Buffer; copy: Buffer }> = [];
      const take = (b: Buffer) => {
        pieces.push({ view: b, copy: Buffer.from(b) });
        return Promise.resolve(b);
      };
      const out = new ByteWriter(start, undefined, { everyBytes: 50_000, take, takeCompressed: () => expect.unreachable() });
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

  it('hands a block as one piece of its own, whatever its size, and a block with its compressed form to takeCompressed', async () => {
    const handed: Array<{ kind: 'take' | 'compressed'; text: string; compressed?: string }> = [];
    const out = new ByteWriter(64, undefined, {
      everyBytes: 100,
      take: (b) => {
        handed.push({ kind: 'take', text: b.toString() });
        return Promise.resolve(Buffer.from(`z(${b.length})`));
      },
      takeCompressed: (b, z) => void handed.push({ kind: 'compressed', text: b.toString(), compressed: z.toString() }),
    });
    expect(out.compressing).toBe(true);
    const kept: Array<Promise<Buffer>> = [];
    out.write('before ');
    const big = 'b'.repeat(450);
    out.writeBlock(() => {
      out.write('block1 ');
      out.writeRange(Buffer.from(big), 0, big.length); // past everyBytes: not cut inside the block
      out.writeBlock(() => out.write('nested ')); // part of the outer block
    }, undefined, (z) => kept.push(z));
    out.writeBlock(() => out.write('block2 '), Buffer.from('Z2'));
    out.write('after');
    out.handRest();
    expect(handed).toEqual([
      { kind: 'take', text: 'before ' },
      { kind: 'take', text: `block1 ${big}nested ` },
      { kind: 'compressed', text: 'block2 ', compressed: 'Z2' },
      { kind: 'take', text: 'after' },
    ]);
    expect(out.bytes().toString()).toBe(`before block1 ${big}nested block2 after`);
    expect(kept).toHaveLength(1);
    expect((await kept[0]!).toString()).toBe(`z(${7 + big.length + 7})`);
    expect(out.reusedBytes).toBe('block2 '.length);
  });

  it('without a sink writes a block as plain bytes', () => {
    const out = new ByteWriter(16);
    expect(out.compressing).toBe(false);
    out.writeBlock(() => out.write('a'), Buffer.from('ignored'), () => expect.unreachable());
    expect(out.bytes().toString()).toBe('a');
    expect(out.reusedBytes).toBe(0);
  });
});
