// One sample line of the text format: `name{labels} value [timestamp]`. Split from the
// document-level parser so each stays small; errors carry the line number they were found on.
import type { MetricFamily, Sample } from './types.js';
import { parseFloatToken, parseTimestampToken } from './grammar.js';
import { ExpositionError } from './errors.js';

const LABEL_NAME_AT = /[a-zA-Z_][a-zA-Z0-9_]*/y;
const METRIC_NAME_AT = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

/**
 * Parses `name{labels} value [timestamp]` (leading blanks already removed). `at.value` is set to
 * where the value token starts in `line`.
 */
export function parseSampleLine(line: string, lineNo: number, at?: { value: number }): Sample {
  const nameMatch = METRIC_NAME_AT.exec(line);
  if (!nameMatch) throw new ExpositionError(lineNo, 'invalid metric name');
  const name = nameMatch[0];
  let pos = name.length;
  const next = line[pos];
  if (next !== undefined && next !== ' ' && next !== '\t' && next !== '{') {
    throw new ExpositionError(lineNo, 'invalid metric name');
  }
  pos = skipBlanks(line, pos);

  const labels: Record<string, string> = {};
  if (line[pos] === '{') pos = parseLabels(line, pos + 1, labels, lineNo);
  if (at) at.value = skipBlanks(line, pos);

  const tokens = line
    .slice(pos)
    .trim()
    .split(/[ \t]+/);
  const valueToken = tokens[0] ?? '';
  if (valueToken === '') throw new ExpositionError(lineNo, `missing value for ${name}`);
  if (tokens.length > 2) throw new ExpositionError(lineNo, `unexpected text after the timestamp of ${name}`);
  const value = parseFloatToken(valueToken);
  if (value === undefined) throw new ExpositionError(lineNo, `invalid value for ${name}`);
  const sample: Sample = { name, labels, value };
  if (tokens[1] !== undefined) {
    const ts = parseTimestampToken(tokens[1]);
    if (ts === undefined) throw new ExpositionError(lineNo, `invalid timestamp for ${name}`);
    sample.timestampMs = ts;
  }
  return sample;
}

/** Reads labels after `{` up to and including `}`; returns the position after `}`. */
function parseLabels(line: string, start: number, labels: Record<string, string>, lineNo: number): number {
  let pos = start;
  // Each pass consumes at least one character, so the loop ends with the line.
  while (pos <= line.length) {
    pos = skipBlanks(line, pos);
    if (line[pos] === '}') return pos + 1;
    LABEL_NAME_AT.lastIndex = pos;
    const m = LABEL_NAME_AT.exec(line);
    if (!m) throw new ExpositionError(lineNo, pos >= line.length ? 'unterminated label set' : 'invalid label name');
    const labelName = m[0];
    if (labelName === '__name__') throw new ExpositionError(lineNo, 'label name __name__ is reserved');
    if (Object.prototype.hasOwnProperty.call(labels, labelName)) {
      throw new ExpositionError(lineNo, `duplicate label name ${labelName}`);
    }
    pos = skipBlanks(line, pos + labelName.length);
    if (line[pos] !== '=') throw new ExpositionError(lineNo, `expected '=' after label name ${labelName}`);
    pos = skipBlanks(line, pos + 1);
    if (line[pos] !== '"') throw new ExpositionError(lineNo, `value of label ${labelName} is not quoted`);
    const [value, end] = readLabelValue(line, pos + 1, lineNo);
    setLabel(labels, labelName, value);
    pos = skipBlanks(line, end);
    if (line[pos] === ',') pos += 1;
    else if (line[pos] === '}') return pos + 1;
    else
      throw new ExpositionError(
        lineNo,
        pos >= line.length ? 'unterminated label set' : "expected ',' or '}' in label set",
      );
  }
  throw new ExpositionError(lineNo, 'unterminated label set');
}

/** Reads a quoted value body; returns it unescaped and the position after the closing quote. */
function readLabelValue(line: string, start: number, lineNo: number): [string, number] {
  let out = '';
  let from = start;
  for (let pos = start; pos < line.length; pos++) {
    const c = line[pos];
    if (c === '"') return [out + line.slice(from, pos), pos + 1];
    if (c !== '\\') continue;
    const e = line[pos + 1];
    const decoded = e === '\\' ? '\\' : e === '"' ? '"' : e === 'n' ? '\n' : undefined;
    if (decoded === undefined) {
      throw new ExpositionError(
        lineNo,
        e === undefined ? 'unterminated label value' : 'invalid escape sequence in label value',
      );
    }
    out += line.slice(from, pos) + decoded;
    pos += 1;
    from = pos + 1;
  }
  throw new ExpositionError(lineNo, 'unterminated label value');
}

/** `__proto__` is a valid label name: define it as a plain own property. */
function setLabel(labels: Record<string, string>, name: string, value: string): void {
  if (name === '__proto__')
    Object.defineProperty(labels, name, { value, enumerable: true, writable: true, configurable: true });
  else labels[name] = value;
}

function skipBlanks(line: string, pos: number): number {
  let p = pos;
  while (line[p] === ' ' || line[p] === '\t') p++;
  return p;
}

/** A histogram's buckets need `le`, a summary's quantiles `quantile`, each a float. */
export function checkSampleFits(family: MetricFamily, sample: Sample, lineNo: number): void {
  const bound = (label: string): void => {
    const v = sample.labels[label];
    if (v === undefined) throw new ExpositionError(lineNo, `${sample.name} lacks the ${label} label`);
    if (parseFloatToken(v) === undefined)
      throw new ExpositionError(lineNo, `${sample.name} has a non-numeric ${label} label`);
  };
  if (family.type === 'histogram') {
    if (sample.name === `${family.name}_bucket`) bound('le');
    else if (sample.name === family.name)
      throw new ExpositionError(lineNo, `histogram sample ${sample.name} needs a _bucket, _sum or _count suffix`);
  } else if (family.type === 'summary' && sample.name === family.name) {
    bound('quantile');
  }
}

/** Characters of a value or timestamp token (digits, sign, point, exponent, NaN, Inf). */
function isTokenChar(c: number): boolean {
  return (c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 122) || c === 43 || c === 45 || c === 46;
}

/** End of one token starting at `start` (start itself when there is none). */
export function tokenEnd(text: string, start: number): number {
  let p = start;
  while (p < text.length && isTokenChar(text.charCodeAt(p))) p++;
  return p;
}

/**
 * End of `value` or `value<blanks>timestamp` starting at `start` (tokens not checked); -1 when
 * there is no value or blanks come without a timestamp.
 */
export function tailEnd(text: string, start: number): number {
  const v = tokenEnd(text, start);
  if (v === start) return -1;
  let p = v;
  while (text.charCodeAt(p) === 32 || text.charCodeAt(p) === 9) p++;
  if (p === v) return v;
  const t = tokenEnd(text, p);
  return t === p ? -1 : t;
}
