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
      const out = new ByteWriter(start, undefined, { everyBytes: 50_000, take: (b) => pieces.push({ view: b, copy: Buffer.from(b) }) });
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
});
