// Go-style durations ("500ms", "15s", "1h30m", "1.5s"), as Prometheus users write them.

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  'µs': 1e-3, // U+00B5 micro sign
  'μs': 1e-3, // U+03BC Greek mu
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
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

/** Compact Go-style rendering of whole milliseconds, for messages and docs ("1m30s"). */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const parts: string[] = [];
  let rest = Math.round(ms);
  for (const [unit, size] of [['h', 3_600_000], ['m', 60_000], ['s', 1_000], ['ms', 1]] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n}${unit}`);
    rest -= n * size;
  }
  return parts.join('');
}

const HINT = 'expected a number with a unit (ns, us, ms, s, m, h), e.g. 500ms, 15s, 2m, 1h30m';

function parse(text: string): { ms: number; error?: undefined } | { ms?: undefined; error: string } {
  if (typeof text !== 'string' || text.length === 0) return { error: `empty; ${HINT}` };
  let rest = text;
  let sign = 1;
  if (rest[0] === '-' || rest[0] === '+') {
    if (rest[0] === '-') sign = -1;
    rest = rest.slice(1);
  }
  // Go accepts a bare "0" without a unit.
  if (rest === '0') return { ms: 0 };
  if (rest.length === 0) return { error: `no number; ${HINT}` };
  let total = 0;
  // Every iteration consumes at least one character, so the loop is bounded by the length.
  while (rest.length > 0) {
    const num = NUMBER_RE.exec(rest);
    if (!num) return { error: `unexpected character; ${HINT}` };
    rest = rest.slice(num[0].length);
    const unit = UNIT_RE.exec(rest);
    if (!unit) return { error: rest.length === 0 ? `missing unit; ${HINT}` : `unknown unit; ${HINT}` };
    rest = rest.slice(unit[0].length);
    total += Number(num[0]) * (UNIT_MS[unit[0]] as number);
  }
  if (!Number.isFinite(total)) return { error: 'too large' };
  return { ms: sign * total };
}
