// Integers from query strings and command-line options: plain decimal digits only (no sign,
// fraction, exponent, hex or spaces, which Number() would accept), within the caller's range.

export function parseIntParam(raw: string, min: number, max: number): number | null {
  if (!/^\d{1,15}$/.test(raw)) return null;
  const n = Number(raw);
  return n >= min && n <= max ? n : null;
}
