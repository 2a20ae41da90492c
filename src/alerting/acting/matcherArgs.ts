// Matchers and durations as people type them on a command line or in a chat, in amtool's
// syntax: each argument one matcher (silences/matchers.ts reads it, the one parser of matcher
// text), a bare first word meaning `alertname=<word>`, and Prometheus durations (`90m`, `2h`,
// `1d`, `1w`). Pure: the CLI and the Telegram commands both read their arguments through here.
import { compileMatchers, formatMatcher, LABEL_NAME, parseMatcher as parseMatcherText } from '../silences/matchers.js';
import type { Matcher } from '../silences/types.js';

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** One matcher from `name<op>value` (silences/matchers.ts parseMatcher). */
export function parseMatcher(text: string): Parsed<Matcher> {
  const m = parseMatcherText(text);
  return 'error' in m ? { ok: false, error: m.error } : { ok: true, value: m };
}

/**
 * The matchers of an argument list, as amtool reads them: a first word without an operator is the
 * alert name. At least one matcher must match something (Alertmanager refuses a silence whose
 * matchers all match the empty string).
 */
export function parseMatchers(args: readonly string[]): Parsed<Matcher[]> {
  const out: Matcher[] = [];
  for (const [i, arg] of args.entries()) {
    if (i === 0 && LABEL_NAME.test(arg)) {
      out.push({ name: 'alertname', value: arg, isRegex: false, isEqual: true });
      continue;
    }
    const m = parseMatcher(arg);
    if (!m.ok) return m;
    out.push(m.value);
  }
  if (out.length === 0) return { ok: false, error: 'give at least one matcher, e.g. node=val-eu-1' };
  const all = compileMatchers(out);
  if (typeof all !== 'function') return { ok: false, error: `${all.error} (it would silence everything)` };
  return { ok: true, value: out };
}

/** A matcher written back as text, the way it is parsed: `node="val-eu-1"`. */
export const matcherText: (m: Matcher) => string = formatMatcher;

const DURATION_UNITS: ReadonlyArray<[string, number]> = [
  ['y', 365 * 86_400_000],
  ['w', 7 * 86_400_000],
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['ms', 1],
  ['m', 60_000],
  ['s', 1_000],
];
const DURATION_RE = /^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$/;

/** Prometheus's duration syntax (`1h30m`, `2d`, `1w`), as amtool's --duration takes it; more than 0. */
export function parseDurationArg(text: string): Parsed<number> {
  const m = DURATION_RE.exec(text);
  if (!m || text === '') return { ok: false, error: `bad duration "${text}": expected e.g. 30m, 2h, 1d, 1w` };
  const order = ['y', 'w', 'd', 'h', 'm', 's', 'ms'];
  let ms = 0;
  order.forEach((unit, i) => {
    if (m[i + 1] !== undefined) ms += Number(m[i + 1]) * DURATION_UNITS.find(([u]) => u === unit)![1];
  });
  if (ms <= 0) return { ok: false, error: `bad duration "${text}": must be more than 0` };
  return { ok: true, value: ms };
}

/** Whether a word is a duration (the Telegram /silence command tells its duration argument apart so). */
export const isDurationArg = (text: string): boolean => parseDurationArg(text).ok;

/** A duration for people, largest units first: 3_600_000 -> "1h", 5_400_000 -> "1h30m". */
export function durationText(ms: number): string {
  if (ms < 1_000) return `${Math.max(0, Math.round(ms))}ms`;
  let left = Math.round(ms / 1_000);
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    const n = Math.floor(left / size);
    if (n > 0) parts.push(`${n}${unit}`);
    left -= n * size;
  }
  return parts.slice(0, 2).join('');
}
