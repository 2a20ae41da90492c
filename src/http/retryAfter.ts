/** Retry-After as seconds or an HTTP date, in ms from now; capped at one hour. */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  const secs = /^\s*\d+\s*$/.test(v) ? Number(v) * 1000 : Date.parse(v) - now;
  if (!Number.isFinite(secs) || secs <= 0) return undefined;
  return Math.min(secs, 3_600_000);
}
