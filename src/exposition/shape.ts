// The shape of a /metrics answer: its text with the sample values cut out. A node sends the same
// HELP/TYPE lines and label sets poll after poll and only values change, so an answer whose text
// around the values is exactly its last answer's has the same families, series, budget outcome
// and output lines: only its values are read (matchShape), and the full parse is skipped.
// Shapes are shared by every node sending the same text (a fleet runs a few builds).
import type { UpstreamBudget } from './budget.js';
import { formatValue, parseFloatToken, parseTimestampToken } from './grammar.js';
import { tokenEnd } from './sampleLine.js';

export interface UpstreamShape {
  /** The text around the values: segments[i] comes before value i, the last one after the last value. */
  readonly segments: readonly string[];
  /** The budget the answer was read under, whole (another budget could cut it). */
  readonly budget: Partial<UpstreamBudget>;
}

/** A larger shape is not kept: such an answer is parsed in full each poll rather than held twice. */
const MAX_SHAPE_CHARS = 64 * 1024;
/** Bounds of the shared table (a node with changing label values makes a new shape each poll). */
const TABLE_MAX_ENTRIES = 10_000;
const TABLE_MAX_CHARS = 8 * 1024 * 1024;

const table = new Map<string, UpstreamShape>();
let tableChars = 0;

/**
 * The shape of `text`, whose sample values stand at `tails` (start and end offsets of each
 * `value [timestamp]`, as the parser found them); the one already shared when there is one.
 */
export function shapeOf(
  text: string,
  tails: readonly number[],
  budget: Partial<UpstreamBudget>,
): UpstreamShape | undefined {
  let chars = text.length;
  for (let i = 0; i < tails.length; i += 2) chars -= tails[i + 1]! - tails[i]!;
  if (chars > MAX_SHAPE_CHARS) return undefined;
  const lengths: number[] = [];
  const pieces: string[] = [];
  let from = 0;
  for (let i = 0; i <= tails.length; i += 2) {
    const to = i < tails.length ? tails[i]! : text.length;
    pieces.push(text.slice(from, to));
    lengths.push(to - from);
    from = tails[i + 1]!;
  }
  const head =
    `${budget.maxSeries},${budget.maxBytes},${budget.maxFamilies},${budget.maxHelpChars}|` + `${lengths.join(',')}|`;
  const key = head + pieces.join('');
  const known = table.get(key);
  if (known) return known;
  // Segments are cut from the key: one string holds the text (not the node's whole answer).
  const segments: string[] = [];
  let at = head.length;
  for (const n of lengths) {
    segments.push(key.slice(at, at + n));
    at += n;
  }
  const shape: UpstreamShape = { segments, budget };
  if (table.size >= TABLE_MAX_ENTRIES || tableChars + key.length > TABLE_MAX_CHARS) {
    // Dropping the lot is cheap and rare: nodes keep their own shape, and share again at their next change.
    table.clear();
    tableChars = 0;
  }
  table.set(key, shape);
  tableChars += key.length;
  return shape;
}

/** Entries and characters of the shared table (tests). */
export function shapeTableSize(): { entries: number; chars: number } {
  return { entries: table.size, chars: tableChars };
}

/**
 * The values of `text` when it has this shape: the same text around the values, and each value
 * (and timestamp, if any) a valid token as the parser reads it. Undefined otherwise, when the
 * answer must be parsed in full (which also finds any error).
 */
export function matchShape(shape: UpstreamShape, text: string): number[] | undefined {
  const { segments } = shape;
  const n = segments.length - 1;
  const values: number[] = [];
  let pos = 0;
  for (let i = 0; i < n; i++) {
    const seg = segments[i]!;
    // A slice compared with === is several times faster than startsWith here (V8 compares memory).
    if (text.slice(pos, pos + seg.length) !== seg) return undefined;
    pos += seg.length;
    const end = tokenEnd(text, pos);
    const value = valueOf(text, pos, end);
    if (value === undefined) return undefined;
    values.push(value);
    pos = end;
    // A segment after a value starts a new line, so blanks here lead to a timestamp.
    let c = text.charCodeAt(pos);
    if (c !== 32 && c !== 9) continue;
    while (c === 32 || c === 9) c = text.charCodeAt(++pos);
    const tsEnd = tokenEnd(text, pos);
    if (tsEnd === pos || parseTimestampToken(text.slice(pos, tsEnd)) === undefined) return undefined;
    pos = tsEnd;
  }
  const last = segments[n]!;
  return text.length - pos === last.length && text.slice(pos) === last ? values : undefined;
}

/**
 * The value token text[start, end) as parseFloatToken reads it; plain integers (most values) without a regular
 * expression.
 */
function valueOf(text: string, start: number, end: number): number | undefined {
  if (end === start) return undefined;
  // Up to 15 digits the sum below is exact, so it equals Number() of the token.
  if (end - start > 15) return parseFloatToken(text.slice(start, end));
  let v = 0;
  for (let p = start; p < end; p++) {
    const d = text.charCodeAt(p) - 48;
    if (d < 0 || d > 9) return parseFloatToken(text.slice(start, end));
    v = v * 10 + d;
  }
  return v;
}

/**
 * An answer of this shape with these values (timestamps left out): what the parser reads as the answer the values came
 * from.
 */
export function shapeText(shape: UpstreamShape, values: ArrayLike<number>): string {
  const { segments } = shape;
  let out = segments[0]!;
  for (let i = 1; i < segments.length; i++) out += formatValue(values[i - 1]!) + segments[i]!;
  return out;
}
