// Byte sizes: "256MiB" (binary), "4MB" (decimal), or a plain number of bytes.

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
};
const SIZE_RE = /^(\d+(?:\.\d+)?)\s*([A-Za-z]*)$/;
const HINT = 'expected a number of bytes or a size such as 512KiB, 4MB, 256MiB, 1GiB';

/** Why `input` is not a byte size, or undefined; never repeats the input (it may come from the env). */
export function byteSizeReason(input: string | number): string | undefined {
  return parse(input).error;
}

/** Bytes in `input`: KB/MB/GB/TB are powers of 1000, KiB/MiB/GiB/TiB powers of 1024. */
export function parseByteSize(input: string | number): number {
  const r = parse(input);
  if (r.error !== undefined) throw new Error(`invalid byte size ${JSON.stringify(input)}: ${r.error}`);
  return r.bytes;
}

function parse(input: string | number): { bytes: number; error?: undefined } | { bytes?: undefined; error: string } {
  let bytes: number;
  if (typeof input === 'number') {
    bytes = input;
  } else if (typeof input === 'string') {
    const m = SIZE_RE.exec(input.trim());
    if (!m) return { error: HINT };
    const unit = UNITS[(m[2] ?? '').toLowerCase()];
    if (unit === undefined) return { error: `unknown unit; ${HINT}` };
    bytes = Number(m[1]) * unit;
  } else {
    return { error: HINT };
  }
  if (!Number.isFinite(bytes) || bytes < 0) return { error: `must be a non-negative number of bytes; ${HINT}` };
  if (!Number.isInteger(bytes)) return { error: 'is not a whole number of bytes' };
  if (bytes > Number.MAX_SAFE_INTEGER) return { error: 'too large' };
  return { bytes };
}
