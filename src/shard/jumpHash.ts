// Jump consistent hash (Lamping and Veach, "A Fast, Minimal Memory, Consistent Hash Algorithm",
// 2014): maps a 64-bit key to one of n buckets so that going from n to n+1 buckets moves only
// about 1/(n+1) of the keys, all of them into the new bucket. BigInt keeps the 64-bit
// multiply exact (a double would lose the low bits the generator depends on).
import { createHash } from 'node:crypto';

const MASK_64 = (1n << 64n) - 1n;
const MULTIPLIER = 2862933555777941757n;
const TWO_POW_31 = 2 ** 31;

/** The bucket in [0, buckets) of a 64-bit key. */
export function jumpConsistentHash(key: bigint, buckets: number): number {
  if (!Number.isInteger(buckets) || buckets < 1)
    throw new RangeError(`buckets must be an integer >= 1, got ${buckets}`);
  let k = BigInt.asUintN(64, key);
  let b = -1;
  let j = 0;
  while (j < buckets) {
    b = j;
    k = (k * MULTIPLIER + 1n) & MASK_64;
    j = Math.floor((b + 1) * (TWO_POW_31 / (Number(k >> 33n) + 1)));
  }
  return b;
}

/**
 * The 64-bit key of a node name: the first 8 bytes (big-endian) of SHA-256 over its UTF-8 bytes.
 * Any tool can recompute it, and similar names still spread evenly.
 */
export function nameKey(name: string): bigint {
  return createHash('sha256').update(name, 'utf8').digest().readBigUInt64BE(0);
}
