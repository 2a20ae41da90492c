// Jump consistent hash against the published algorithm and its two promises: balance, and minimal
// movement (n -> n+1 shards moves about 1/(n+1) of the names, all into the new shard).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  jumpConsistentHash,
  nameKey,
  ownedBy,
  shardFromHostname,
  shardOfName,
  shardSpecProblems,
} from '../../src/shard/index.js';

// A second, independent transcription of the paper's C++ code, with no BigInt: the 64-bit
// state is kept as four 16-bit limbs so the multiply wraps exactly like uint64_t does.
type Limbs = [number, number, number, number]; // least significant first
const toLimbs = (x: bigint): Limbs => [0, 1, 2, 3].map((i) => Number((x >> BigInt(16 * i)) & 0xffffn)) as Limbs;
const MULT = toLimbs(2862933555777941757n);
function mulAdd1(a: Limbs): Limbs {
  const out = [1, 0, 0, 0, 0, 0, 0, 0];
  for (let i = 0; i < 4; i += 1) {
    for (let j = 0; i + j < 4; j += 1) out[i + j] = (out[i + j] as number) + (a[i] as number) * (MULT[j] as number);
    for (let k = 0; k < 7; k += 1) {
      out[k + 1] = (out[k + 1] as number) + Math.floor((out[k] as number) / 0x10000);
      out[k] = (out[k] as number) % 0x10000;
    }
  }
  return [out[0], out[1], out[2], out[3]] as Limbs;
}
/** key >> 33, from the limbs: bits 33..63 */
const high31 = (k: Limbs): number => Math.floor(k[2] / 2) + k[3] * 0x8000;
function referenceJump(key: bigint, buckets: number): number {
  let k = toLimbs(key);
  let b = -1;
  let j = 0;
  while (j < buckets) {
    b = j;
    k = mulAdd1(k);
    j = Math.floor((b + 1) * (2147483648 / (high31(k) + 1)));
  }
  return b;
}

const names = Array.from({ length: 12_000 }, (_, i) => `node-${i}.${i % 7 === 0 ? 'eu' : 'us'}`);

describe('jumpConsistentHash', () => {
  it('agrees with an independent transcription of the published algorithm', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), fc.integer({ min: 1, max: 5000 }), (key, buckets) => {
        expect(jumpConsistentHash(key, buckets)).toBe(referenceJump(key, buckets));
      }),
      { numRuns: 2000 },
    );
  });

  it('gives the values published with the reference implementations', () => {
    // The vectors the Go, Python and ClickHouse ports test with: (key, buckets) -> bucket.
    const published: Array<[bigint, number, number]> = [
      [1n, 1, 0],
      [42n, 57, 43],
      [256n, 1024, 520],
      [0xdead10ccn, 1, 0],
      [0xdead10ccn, 666, 361],
    ];
    for (const [key, buckets, bucket] of published) {
      expect(jumpConsistentHash(key, buckets)).toBe(bucket);
      expect(referenceJump(key, buckets)).toBe(bucket);
    }
  });

  it('rejects bucket counts below 1 or fractional', () => {
    expect(() => jumpConsistentHash(1n, 0)).toThrow(/>= 1/);
    expect(() => jumpConsistentHash(1n, 2.5)).toThrow(/integer/);
  });

  it('spreads names evenly', () => {
    for (const n of [2, 3, 5]) {
      const counts = new Array<number>(n).fill(0);
      for (const name of names) counts[shardOfName(name, n)] = (counts[shardOfName(name, n)] as number) + 1;
      for (const c of counts) expect(Math.abs(c - names.length / n) / (names.length / n)).toBeLessThan(0.06);
    }
  });

  it('moves about 1/(n+1) of the names from n to n+1 shards, all into the new shard', () => {
    for (let n = 1; n <= 9; n += 1) {
      let moved = 0;
      for (const name of names) {
        const before = shardOfName(name, n);
        const after = shardOfName(name, n + 1);
        if (before !== after) {
          moved += 1;
          expect(after).toBe(n);
        }
      }
      const expected = names.length / (n + 1);
      expect(Math.abs(moved - expected) / expected, `n=${n}`).toBeLessThan(0.08);
    }
  });
});

describe('nameKey', () => {
  it('is the first 8 bytes of SHA-256 over the UTF-8 name', () => {
    // SHA-256("abc") = ba7816bf 8f01cfea ... (FIPS 180-2, appendix B.1)
    expect(nameKey('abc')).toBe(0xba7816bf8f01cfean);
    expect(nameKey('val-eu-1')).not.toBe(nameKey('val-eu-2'));
  });
});

describe('ownedBy', () => {
  it('puts every node in exactly one shard', () => {
    const nodes = names.slice(0, 500).map((name) => ({ name }));
    for (const total of [1, 2, 3, 4, 7]) {
      const seen = new Map<string, number>();
      for (let shard = 0; shard < total; shard += 1) {
        for (const node of ownedBy(nodes, { shard, totalShards: total }))
          seen.set(node.name, (seen.get(node.name) ?? 0) + 1);
      }
      expect(seen.size).toBe(nodes.length);
      expect([...seen.values()].every((c) => c === 1)).toBe(true);
    }
  });

  it('keeps the configured order', () => {
    const nodes = names.slice(0, 50).map((name) => ({ name }));
    const mine = ownedBy(nodes, { shard: 1, totalShards: 3 });
    expect(mine.map((n) => nodes.indexOf(n))).toEqual([...mine.map((n) => nodes.indexOf(n))].sort((a, b) => a - b));
  });
});

describe('shardSpecProblems', () => {
  it('accepts a shard inside its range', () => {
    expect(shardSpecProblems({ shard: 0, totalShards: 1 })).toEqual([]);
    expect(shardSpecProblems({ shard: 2, totalShards: 3 })).toEqual([]);
  });
  it('says what is wrong otherwise', () => {
    expect(shardSpecProblems({ shard: 3, totalShards: 3 })).toEqual([
      'shard 3 is out of range: shards are numbered 0..2 for total shards 3',
    ]);
    expect(shardSpecProblems({ shard: 0, totalShards: 0 })).toEqual(['total shards must be an integer >= 1, got 0']);
    expect(shardSpecProblems({ shard: -1, totalShards: 2 })).toEqual(['shard must be an integer >= 0, got -1']);
    expect(shardSpecProblems({ shard: 0.5, totalShards: 2 })).toEqual(['shard must be an integer >= 0, got 0.5']);
  });
});

describe('shardFromHostname', () => {
  it('takes the StatefulSet ordinal from the pod name', () => {
    expect(shardFromHostname('ledger-fleet-exporter-0')).toBe(0);
    expect(shardFromHostname('ledger-fleet-exporter-12')).toBe(12);
    expect(shardFromHostname('web-2\n')).toBe(2);
  });
  it('is undefined for names without an ordinal', () => {
    expect(shardFromHostname('ledger-fleet-exporter')).toBeUndefined();
    expect(shardFromHostname('host7')).toBeUndefined();
    expect(shardFromHostname('')).toBeUndefined();
  });
});
