// CRC-32 (the gzip one) of two byte runs joined, from their own CRCs and the second's length, as
// zlib's crc32_combine computes it (Node does not expose that function): a gzip body can then be
// made of pieces whose CRC was computed once, when they were first compressed.
// Polynomials over GF(2) in CRC-32's reflected bit order: bit 31 is x^0.
const POLY = 0xedb88320;

/** a(x) * b(x) modulo the CRC-32 polynomial. */
function multModP(a: number, b: number): number {
  let m = 0x80000000;
  let p = 0;
  for (;;) {
    if ((a & m) !== 0) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p >>> 0;
}

/** x^(2^k) modulo the polynomial, k = 0..31. */
const X2N: number[] = [];
X2N[0] = 0x40000000; // x^1
for (let k = 1; k < 32; k++) X2N[k] = multModP(X2N[k - 1]!, X2N[k - 1]!);

/** x^(n * 2^k) modulo the polynomial. */
function x2nModP(n: number, k: number): number {
  let p = 0x80000000; // x^0
  while (n > 0) {
    if (n % 2 === 1) p = multModP(X2N[k % 32]!, p);
    n = Math.floor(n / 2);
    k++;
  }
  return p;
}

/** CRC-32 of A followed by B, given crc32(A), crc32(B) and B's length in bytes. */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  return (multModP(x2nModP(lengthB, 3), crcA >>> 0) ^ crcB) >>> 0;
}
