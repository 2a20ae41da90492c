// HELP/TYPE header lines of an output family in both formats, and the names the family claims.
// Header lines are the same for every node sending a family: built once and shared through a
// cache bounded by entries AND characters (HELP is free text a node controls).
import type { MetricType } from './types.js';
import { HEADER_CACHE_MAX_CHARS } from './budget.js';
import { escapeHelpOpenMetrics, escapeHelpText } from './grammar.js';

export interface FamilyHeaders {
  /** Output family name, as declared in the text format. */
  name: string;
  type: MetricType;
  /** `# HELP` line for format 0.0.4, with its newline; '' without help. */
  textHelpLine: string;
  /** `# TYPE` line for format 0.0.4, with its newline. */
  textTypeLine: string;
  /** Family name in OpenMetrics: a counter's name without `_total`. */
  openMetricsName: string;
  /** `# HELP` line for OpenMetrics, with its newline; '' without help. */
  openMetricsHelpLine: string;
  /** `# TYPE` line for OpenMetrics (untyped and counters lacking `_total` become `unknown`). */
  openMetricsTypeLine: string;
  /**
   * Every name a parser could attribute to this family in either format: its family names and
   * its sample names (`_bucket`, `_sum`, `_count`, `_total`, `_created`). Two families claiming
   * one name cannot both be exposed.
   */
  claims: readonly string[];
}

const cache = new Map<string, FamilyHeaders>();
const CACHE_MAX_ENTRIES = 10_000;
let cacheChars = 0;

export function familyHeaders(name: string, type: MetricType, help: string | undefined): FamilyHeaders {
  const key = `${name}\u0000${type}\u0000${help ?? '\u0001'}`;
  let h = cache.get(key);
  if (!h) {
    h = buildHeaders(name, type, help);
    const chars = key.length + h.textHelpLine.length + h.openMetricsHelpLine.length + 2 * name.length + 64;
    if (cache.size >= CACHE_MAX_ENTRIES || cacheChars + chars > HEADER_CACHE_MAX_CHARS) {
      // Dropping the lot is cheap and rare: live families are rebuilt at their node's next poll.
      cache.clear();
      cacheChars = 0;
    }
    cache.set(key, h);
    cacheChars += chars;
  }
  return h;
}

/** Entries and characters held by the shared cache (tests and the hostile benchmark). */
export function headerCacheSize(): { entries: number; chars: number } {
  return { entries: cache.size, chars: cacheChars };
}

function buildHeaders(name: string, type: MetricType, help: string | undefined): FamilyHeaders {
  const counterWithTotal = type === 'counter' && name.endsWith('_total');
  const openMetricsName = counterWithTotal ? name.slice(0, -'_total'.length) : name;
  // An OpenMetrics counter's samples must end in _total; one that does not is exposed as unknown.
  const omType = type === 'untyped' || (type === 'counter' && !counterWithTotal) ? 'unknown' : type;
  return {
    name,
    type,
    textHelpLine: help !== undefined ? `# HELP ${name} ${escapeHelpText(help)}\n` : '',
    textTypeLine: `# TYPE ${name} ${type}\n`,
    openMetricsName,
    openMetricsHelpLine: help !== undefined ? `# HELP ${openMetricsName} ${escapeHelpOpenMetrics(help)}\n` : '',
    openMetricsTypeLine: `# TYPE ${openMetricsName} ${omType}\n`,
    claims: claimedNames(name, openMetricsName, type),
  };
}

function claimedNames(name: string, omName: string, type: MetricType): string[] {
  const names = new Set([name, omName]);
  const add = (...suffixes: string[]) => suffixes.forEach((s) => names.add(omName + s));
  if (type === 'counter') add('_total', '_created');
  else if (type === 'histogram') add('_bucket', '_sum', '_count', '_created');
  else if (type === 'summary') add('_sum', '_count', '_created');
  return [...names];
}
