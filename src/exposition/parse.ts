// Parser for the Prometheus text exposition format 0.0.4 as written by client_golang,
// node_exporter, the Rust `prometheus` crate and prom-client. Hand-written because the npm
// parsers available neither report line numbers nor reject malformed input; the grammar is
// small and line-based. It is strict on purpose: a proxy's HTML error page or a JSON body must
// be rejected as a whole, never half-read into bogus series.
import type { MetricFamily, MetricType, Sample } from '../domain.js';
import { isValidMetricName, parseFloatToken, parseTimestampToken } from './grammar.js';
import { labelKey, seriesGroups } from './series.js';

export class ExpositionError extends Error {
  /** 1-based line of the input where parsing failed. */
  readonly line: number;

  constructor(line: number, reason: string) {
    // The offending text is not quoted: an echoed error page could hold anything.
    super(`line ${line}: ${reason}`);
    this.name = 'ExpositionError';
    this.line = line;
  }
}

export interface ParseOptions {
  /** Keep at most this many samples; the rest are dropped (whole histogram/summary series at a time) and counted. */
  maxSeries?: number;
}

export interface ParsedExposition {
  families: MetricFamily[];
  droppedSamples: number;
}

const TYPES: ReadonlySet<string> = new Set<MetricType>(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const LABEL_NAME_AT = /[a-zA-Z_][a-zA-Z0-9_]*/y;
const METRIC_NAME_AT = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const HELP_OR_TYPE = /^#[ \t]*(HELP|TYPE)(?:[ \t]+(.*))?$/;
const NAME_AND_REST = /^(\S+)(?:[ \t]+(.*))?$/;

interface FamilyBuilder {
  family: MetricFamily;
  /** False while the type is the implicit `untyped` of samples or HELP seen before any TYPE. */
  typeDeclared: boolean;
}

/** Parses a whole exposition; throws ExpositionError on the first malformed line. */
export function parseExposition(text: string, opts: ParseOptions = {}): ParsedExposition {
  const families = new Map<string, FamilyBuilder>();
  const seen = new Set<string>();
  const lines = text.split('\n');
  let eofAt = 0;

  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const raw = lines[i] ?? '';
    const line = (raw.endsWith('\r') ? raw.slice(0, -1) : raw).replace(/^[ \t]+/, '');
    if (line.trim() === '') continue;
    if (eofAt > 0) throw new ExpositionError(lineNo, `content after # EOF on line ${eofAt}`);
    if (line.startsWith('#')) {
      if (line.trimEnd() === '# EOF') eofAt = lineNo;
      else handleComment(line, lineNo, families);
      continue;
    }
    const sample = parseSampleLine(line, lineNo);
    const builder = familyFor(sample.name, families);
    checkSampleFits(builder.family, sample, lineNo);
    const key = `${sample.name}\u0000${labelKey(sample.labels)}`;
    if (seen.has(key)) throw new ExpositionError(lineNo, `duplicate series for ${sample.name}`);
    seen.add(key);
    builder.family.samples.push(sample);
  }

  return applySeriesCap(
    [...families.values()].map((b) => b.family),
    opts.maxSeries,
  );
}

function handleComment(line: string, lineNo: number, families: Map<string, FamilyBuilder>): void {
  const m = HELP_OR_TYPE.exec(line);
  // `# HELP` with nothing after it is an ordinary comment, as in client_golang.
  const keyword = m?.[1];
  const rest = m?.[2]?.trim();
  if (!keyword || !rest) return;
  const parts = NAME_AND_REST.exec(rest);
  const name = parts?.[1] ?? '';
  const arg = parts?.[2] ?? '';
  if (!isValidMetricName(name)) throw new ExpositionError(lineNo, `invalid metric name in ${keyword} line`);

  if (keyword === 'HELP') {
    const b = families.get(name) ?? newFamily(name, families);
    b.family.help ??= unescapeHelp(arg);
    return;
  }

  const type = arg.trim();
  if (!TYPES.has(type)) throw new ExpositionError(lineNo, `unknown metric type for ${name}`);
  const metricType = type as MetricType;
  const b = families.get(name);
  if (b?.typeDeclared) {
    if (b.family.type !== metricType) {
      throw new ExpositionError(lineNo, `family ${name} declared twice with different TYPE (${b.family.type}, then ${metricType})`);
    }
    return;
  }
  // A TYPE arriving after samples would retype (or regroup) what was already read.
  const suffixes = metricType === 'histogram' || metricType === 'summary' ? ['', '_bucket', '_sum', '_count'] : [''];
  for (const suffix of suffixes) {
    if ((families.get(name + suffix)?.family.samples.length ?? 0) > 0) {
      throw new ExpositionError(lineNo, `TYPE line for ${name} after its samples`);
    }
  }
  const target = b ?? newFamily(name, families);
  target.family.type = metricType;
  target.typeDeclared = true;
}

function newFamily(name: string, families: Map<string, FamilyBuilder>): FamilyBuilder {
  const b: FamilyBuilder = { family: { name, type: 'untyped', samples: [] }, typeDeclared: false };
  families.set(name, b);
  return b;
}

/** HELP escapes `\\` and `\n`; any other backslash is kept as written (HELP is free text). */
function unescapeHelp(text: string): string {
  return text.replace(/\\([\\n])/g, (_, c: string) => (c === 'n' ? '\n' : '\\'));
}

/** Histogram and summary samples carry suffixes; they belong to the declared base family. */
function familyFor(sampleName: string, families: Map<string, FamilyBuilder>): FamilyBuilder {
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!sampleName.endsWith(suffix)) continue;
    const base = families.get(sampleName.slice(0, -suffix.length));
    const t = base?.family.type;
    if (base && (t === 'histogram' || (t === 'summary' && suffix !== '_bucket'))) return base;
  }
  return families.get(sampleName) ?? newFamily(sampleName, families);
}

function checkSampleFits(family: MetricFamily, sample: Sample, lineNo: number): void {
  const bound = (label: string): void => {
    const v = sample.labels[label];
    if (v === undefined) throw new ExpositionError(lineNo, `${sample.name} lacks the ${label} label`);
    if (parseFloatToken(v) === undefined) throw new ExpositionError(lineNo, `${sample.name} has a non-numeric ${label} label`);
  };
  if (family.type === 'histogram') {
    if (sample.name === `${family.name}_bucket`) bound('le');
    else if (sample.name === family.name) throw new ExpositionError(lineNo, `histogram sample ${sample.name} needs a _bucket, _sum or _count suffix`);
  } else if (family.type === 'summary' && sample.name === family.name) {
    bound('quantile');
  }
}

/** Parses `name{labels} value [timestamp]` (leading blanks already removed). */
function parseSampleLine(line: string, lineNo: number): Sample {
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

  const tokens = line.slice(pos).trim().split(/[ \t]+/);
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
    else throw new ExpositionError(lineNo, pos >= line.length ? 'unterminated label set' : "expected ',' or '}' in label set");
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
      throw new ExpositionError(lineNo, e === undefined ? 'unterminated label value' : 'invalid escape sequence in label value');
    }
    out += line.slice(from, pos) + decoded;
    pos += 1;
    from = pos + 1;
  }
  throw new ExpositionError(lineNo, 'unterminated label value');
}

/** `__proto__` is a valid label name: define it as a plain own property. */
function setLabel(labels: Record<string, string>, name: string, value: string): void {
  if (name === '__proto__') Object.defineProperty(labels, name, { value, enumerable: true, writable: true, configurable: true });
  else labels[name] = value;
}

function skipBlanks(line: string, pos: number): number {
  let p = pos;
  while (line[p] === ' ' || line[p] === '\t') p++;
  return p;
}

/**
 * Keeps the first `maxSeries` samples in family order, a whole histogram/summary series at a
 * time; once a group does not fit, everything after it is dropped too, so the kept set is a
 * predictable prefix. Families emptied by the cap disappear.
 */
export function applySeriesCap(families: MetricFamily[], maxSeries: number | undefined): ParsedExposition {
  if (maxSeries === undefined) return { families, droppedSamples: 0 };
  let kept = 0;
  let dropped = 0;
  let full = false;
  const out: MetricFamily[] = [];
  for (const family of families) {
    const samples: Sample[] = [];
    for (const group of seriesGroups(family)) {
      if (!full && kept + group.length <= maxSeries) {
        samples.push(...group);
        kept += group.length;
      } else {
        full = true;
        dropped += group.length;
      }
    }
    if (samples.length > 0 || family.samples.length === 0) out.push({ ...family, samples });
  }
  return { families: out, droppedSamples: dropped };
}
