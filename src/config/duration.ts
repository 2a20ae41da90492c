// Go-style durations ("500ms", "15s", "1h30m", "1.5s"), as Prometheus users write them.

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3, // U+00B5 micro sign
  μs: 1e-3, // U+03BC Greek mu
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};
// Exact nanoseconds per unit, to tell whole milliseconds apart without float error.
const UNIT_NS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  μs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
// Longest first, so "ms" wins over "m".
const UNIT_RE = /^(ns|us|µs|μs|ms|s|m|h)/;
const NUMBER_RE = /^(\d+(?:\.\d*)?|\.\d+)/;

/**
 * Why `text` is not a duration, or undefined when it is one. The reason never repeats the
 * input, because the input may have come from an environment variable.
 */
export function durationReason(text: string): string | undefined {
  return parse(text).error;
}

/** Milliseconds in a Go-style duration (fractions allowed); throws with a clear message. */
export function parseDuration(text: string): number {
  const r = parse(text);
  if (r.error !== undefined) throw new Error(`invalid duration ${JSON.stringify(text)}: ${r.error}`);
  return r.ms;
}

export interface DurationBounds {
  minMs: number;
  maxMs: number;
  /** Messages replacing "duration must be at least/at most ...". */
  tooShort?: string;
  tooLong?: string;
}

/**
 * Why `text` is not a duration a config field accepts: malformed, outside the field's bounds, or
 * not whole milliseconds (timers have millisecond resolution, and a value such as 1ns is a typo).
 */
export function configDurationReason(text: string, bounds: DurationBounds): string | undefined {
  const r = parse(text);
  if (r.error !== undefined) return `invalid duration: ${r.error}`;
  if (r.ms < bounds.minMs)
    return (
      bounds.tooShort ??
      (bounds.minMs === 0
        ? 'duration must not be negative'
        : `duration must be at least ${formatDuration(bounds.minMs)}`)
    );
  if (r.ms > bounds.maxMs) return bounds.tooLong ?? `duration must be at most ${formatDuration(bounds.maxMs)}`;
  if (!r.wholeMs) return 'duration must be a whole number of milliseconds';
  return undefined;
}

/** Compact Go-style rendering of whole milliseconds, for messages and docs ("1m30s"). */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const parts: string[] = [];
  let rest = Math.round(ms);
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1_000],
    ['ms', 1],
  ] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n}${unit}`);
    rest -= n * size;
  }
  return parts.join('');
}

const HINT = 'expected a number with a unit (ns, us, ms, s, m, h), e.g. 500ms, 15s, 2m, 1h30m';

function parse(text: string): { ms: number; wholeMs: boolean; error?: undefined } | { ms?: undefined; error: string } {
  if (typeof text !== 'string' || text.length === 0) return { error: `empty; ${HINT}` };
  let rest = text;
  let sign = 1;
  if (rest[0] === '-' || rest[0] === '+') {
    if (rest[0] === '-') sign = -1;
    rest = rest.slice(1);
  }
  // Go accepts a bare "0" without a unit.
  if (rest === '0') return { ms: 0, wholeMs: true };
  if (rest.length === 0) return { error: `no number; ${HINT}` };
  let total = 0;
  const parts: Array<[string, bigint]> = [];
  // Every iteration consumes at least one character, so the loop is bounded by the length.
  while (rest.length > 0) {
    const num = NUMBER_RE.exec(rest);
    if (!num) return { error: `unexpected character; ${HINT}` };
    rest = rest.slice(num[0].length);
    const unit = UNIT_RE.exec(rest);
    if (!unit) return { error: rest.length === 0 ? `missing unit; ${HINT}` : `unknown unit; ${HINT}` };
    rest = rest.slice(unit[0].length);
    total += Number(num[0]) * (UNIT_MS[unit[0]] as number);
    parts.push([num[0], UNIT_NS[unit[0]] as bigint]);
  }
  if (!Number.isFinite(total)) return { error: 'too large' };
  const exact = exactMs(parts);
  return exact === undefined ? { ms: sign * total, wholeMs: false } : { ms: sign * exact, wholeMs: true };
}

/** The sum of decimal `parts` (number text, ns per unit) in whole milliseconds, or undefined when it is not whole. */
function exactMs(parts: Array<[string, bigint]>): number | undefined {
  // Scale every number to the same count of decimals, so the sum is one exact integer.
  const decimals = Math.max(...parts.map(([n]) => (n.includes('.') ? n.length - n.indexOf('.') - 1 : 0)));
  let sum = 0n;
  for (const [n, unitNs] of parts) {
    const [int = '', frac = ''] = n.split('.');
    sum += BigInt((int || '0') + frac.padEnd(decimals, '0')) * unitNs;
  }
  const perMs = 1_000_000n * 10n ** BigInt(decimals);
  return sum % perMs === 0n ? Number(sum / perMs) : undefined;
}
