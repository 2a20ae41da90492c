// Lexical rules of the Prometheus text format 0.0.4 shared by the parser and the renderer.
// Kept free of I/O so both directions agree on what a valid name or value is.

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
// Decimal floats as Go's strconv.ParseFloat reads them in client_golang's parser (no hex, no '_').
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
// NaN/Inf are case-insensitive there too: prom-client really sends "Nan".
const SPECIAL = /^(?:nan|[+-]?inf(?:inity)?)$/i;
const INTEGER = /^-?\d+$/;

export function isValidMetricName(name: string): boolean {
  return METRIC_NAME.test(name);
}

export function isValidLabelName(name: string): boolean {
  return LABEL_NAME.test(name);
}

/** Parses a sample value or an `le`/`quantile` bound; undefined when it is not a float. */
export function parseFloatToken(token: string): number | undefined {
  if (DECIMAL.test(token)) return Number(token);
  if (SPECIAL.test(token)) {
    const lower = token.toLowerCase();
    if (lower === 'nan') return Number.NaN;
    return lower.startsWith('-') ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  }
  return undefined;
}

/** Integer millisecond timestamp; undefined when not an exact integer. */
export function parseTimestampToken(token: string): number | undefined {
  if (!INTEGER.test(token)) return undefined;
  const n = Number(token);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Value as both formats write it: NaN, +Inf, -Inf, else the shortest round-trip form. */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(value);
}

/** Label values escape backslash, double quote and newline (both formats). */
export function escapeLabelValue(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));
}

/** HELP text in format 0.0.4 escapes only backslash and newline. */
export function escapeHelpText(help: string): string {
  return help.replace(/[\\\n]/g, (c) => (c === '\n' ? '\\n' : '\\\\'));
}

/** OpenMetrics HELP escapes the double quote as well. */
export function escapeHelpOpenMetrics(help: string): string {
  return escapeLabelValue(help);
}
