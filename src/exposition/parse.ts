// Parser for the Prometheus text exposition format 0.0.4 as written by client_golang,
// node_exporter, the Rust `prometheus` crate and prom-client. Hand-written because the npm
// parsers available neither report line numbers nor reject malformed input; the grammar is
// small and line-based. It is strict on purpose: a proxy's HTML error page or a JSON body must
// be rejected as a whole, never half-read into bogus series. It reads line by line and stops at
// the node's budget (budget.ts), so a huge answer costs no more than its budget to hold.
import type { MetricFamily, MetricType, Sample } from './types.js';
import { FAMILY_OVERHEAD, SAMPLE_OVERHEAD, type UpstreamBudget } from './budget.js';
import { ExpositionError } from './errors.js';
import { isValidMetricName } from './grammar.js';
import { checkSampleFits, parseSampleLine, tailEnd } from './sampleLine.js';
import { labelKey } from './series.js';

export { ExpositionError } from './errors.js';

export interface ParseOptions {
  /** Limits; any left out is unbounded. `maxSeries` alone is the classic series cap. */
  budget?: Partial<UpstreamBudget>;
  /** Same as budget.maxSeries. */
  maxSeries?: number;
}

export interface ParsedExposition {
  families: MetricFamily[];
  /** Samples left out: read but not kept, or not read because the parser stopped at the budget. */
  droppedSamples: number;
  /** The budget stopped the parser before the end of the input. */
  truncated: boolean;
}

const TYPES: ReadonlySet<string> = new Set<MetricType>(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const HELP_OR_TYPE = /^#[ \t]*(HELP|TYPE)(?:[ \t]+(.*))?$/;
const NAME_AND_REST = /^(\S+)(?:[ \t]+(.*))?$/;

interface FamilyBuilder {
  family: MetricFamily;
  /** False while the type is the implicit `untyped` of samples or HELP seen before any TYPE. */
  typeDeclared: boolean;
}

/**
 * A parse read to the end, with what a shape of the answer needs (shape.ts): the kept samples in
 * the order of their lines, and where each line's value (and timestamp) stands in the text.
 */
export interface DetailedParse extends ParsedExposition {
  samples: Sample[];
  /**
   * Start and end offset in the text of each sample's `value [timestamp]`; undefined when a line's end is not that
   * alone.
   */
  tails: number[] | undefined;
}

/** Parses a whole exposition; throws ExpositionError on the first malformed line it reads. */
export function parseExposition(text: string, opts: ParseOptions = {}): ParsedExposition {
  const { families, droppedSamples, truncated } = parseDetailed(text, opts);
  return { families, droppedSamples, truncated };
}

export function parseDetailed(text: string, opts: ParseOptions = {}): DetailedParse {
  const doc = new DocumentParser({
    maxSeries: opts.budget?.maxSeries ?? opts.maxSeries,
    ...withoutSeries(opts.budget),
  });
  let pos = 0;
  let lineNo = 0;
  // Line by line with indexOf: no array of every line of a large body.
  while (pos <= text.length) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = text.length;
    lineNo++;
    if (doc.line(text.slice(pos, end), lineNo, pos)) return doc.finish(countSampleLines(text, end + 1));
    pos = end + 1;
  }
  return doc.finish(0);
}

function withoutSeries(budget: Partial<UpstreamBudget> | undefined): Partial<UpstreamBudget> {
  const { maxSeries: _ignored, ...rest } = budget ?? {};
  return rest;
}

/** Sample lines from `from` on, without parsing them (what a stop left unread). */
function countSampleLines(text: string, from: number): number {
  let n = 0;
  let pos = from;
  while (pos < text.length) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = text.length;
    let p = pos;
    while (p < end && (text[p] === ' ' || text[p] === '\t')) p++;
    if (p < end && text[p] !== '#' && text[p] !== '\r') n++;
    pos = end + 1;
  }
  return n;
}

class DocumentParser {
  private readonly families = new Map<string, FamilyBuilder>();
  private readonly seen = new Set<string>();
  private eofAt = 0;
  private kept = 0;
  private bytes = 0;
  private last: { family: MetricFamily; sample: Sample } | undefined;
  /** The sample that did not fit, when a sample stopped the parser. */
  private overflow: Sample | undefined;
  private readonly order: Sample[] = [];
  private tails: number[] | undefined = [];
  private readonly valueAt = { value: 0 };

  constructor(private readonly limits: Partial<UpstreamBudget>) {}

  /** Handles one line; true when the budget is reached and parsing stops. */
  line(raw: string, lineNo: number, offset: number): boolean {
    const bare = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const line = bare.replace(/^[ \t]+/, '');
    if (line.trim() === '') return false;
    if (this.eofAt > 0) throw new ExpositionError(lineNo, `content after # EOF on line ${this.eofAt}`);
    if (line.startsWith('#')) {
      if (line.trimEnd() === '# EOF') this.eofAt = lineNo;
      else return this.comment(line, lineNo);
      return false;
    }
    const sample = parseSampleLine(line, lineNo, this.valueAt);
    const builder = this.familyFor(sample.name);
    const isNew = builder === undefined;
    let cost = SAMPLE_OVERHEAD + sample.name.length;
    for (const k in sample.labels) cost += k.length + (sample.labels[k]?.length ?? 0);
    if (isNew) cost += FAMILY_OVERHEAD + sample.name.length;
    if (this.kept >= (this.limits.maxSeries ?? Infinity) || !this.room(cost, isNew)) {
      this.overflow = sample;
      return true;
    }
    const b = builder ?? this.newFamily(sample.name);
    checkSampleFits(b.family, sample, lineNo);
    own(sample);
    const key = `${sample.name}\u0000${labelKey(sample.labels)}`;
    if (this.seen.has(key)) throw new ExpositionError(lineNo, `duplicate series for ${sample.name}`);
    this.seen.add(key);
    b.family.samples.push(sample);
    this.order.push(sample);
    this.noteTail(line, offset + bare.length - line.length);
    this.kept++;
    this.bytes += cost;
    this.last = { family: b.family, sample };
    return false;
  }

  finish(unread: number): DetailedParse {
    const truncated = this.overflow !== undefined || unread > 0;
    let dropped = unread + (this.overflow ? 1 : 0);
    dropped += this.dropCutGroup();
    let families = [...this.families.values()].map((b) => b.family);
    // Headers read just before a stop announce samples that were never kept.
    if (truncated) families = families.filter((f) => f.samples.length > 0);
    return {
      families,
      droppedSamples: dropped,
      truncated,
      samples: this.order,
      tails: truncated ? undefined : this.tails,
    };
  }

  /** Where the value of the sample line just kept stands, when the rest of the line is `value [timestamp]` alone. */
  private noteTail(line: string, lineAt: number): void {
    if (!this.tails) return;
    const start = this.valueAt.value;
    const end = tailEnd(line, start);
    if (end === line.length) this.tails.push(lineAt + start, lineAt + end);
    else this.tails = undefined;
  }

  private room(cost: number, newFamily: boolean): boolean {
    if (newFamily && this.families.size >= (this.limits.maxFamilies ?? Infinity)) return false;
    return this.bytes + cost <= (this.limits.maxBytes ?? Infinity);
  }

  /**
   * A histogram or summary series cut by the stop (the sample that did not fit belongs to the
   * same series as the last one kept) is removed whole: a half series would mislead.
   */
  private dropCutGroup(): number {
    const last = this.last;
    const next = this.overflow;
    if (!last || !next) return 0;
    const { family } = last;
    const bound = family.type === 'histogram' ? 'le' : family.type === 'summary' ? 'quantile' : undefined;
    if (!bound || this.familyFor(next.name)?.family !== family) return 0;
    const group = labelKey(last.sample.labels, bound);
    if (labelKey(next.labels, bound) !== group) return 0;
    const before = family.samples.length;
    family.samples = family.samples.filter((s) => labelKey(s.labels, bound) !== group);
    return before - family.samples.length;
  }

  private comment(line: string, lineNo: number): boolean {
    const m = HELP_OR_TYPE.exec(line);
    // `# HELP` with nothing after it is an ordinary comment, as in client_golang.
    const keyword = m?.[1];
    const rest = m?.[2]?.trim();
    if (!keyword || !rest) return false;
    const parts = NAME_AND_REST.exec(rest);
    const name = parts?.[1] ?? '';
    const arg = parts?.[2] ?? '';
    if (!isValidMetricName(name)) throw new ExpositionError(lineNo, `invalid metric name in ${keyword} line`);
    const existing = this.families.get(name);
    if (keyword === 'HELP') {
      if (existing?.family.help !== undefined) return false;
      const help = unescapeHelp(arg, this.limits.maxHelpChars ?? Infinity);
      const cost = help.length + (existing ? 0 : FAMILY_OVERHEAD + name.length);
      if (!this.room(cost, !existing)) return true;
      this.bytes += cost;
      (existing ?? this.newFamily(name)).family.help = copied(help);
      return false;
    }
    if (!existing && !this.room(FAMILY_OVERHEAD + name.length, true)) return true;
    this.declareType(name, arg.trim(), lineNo);
    if (!existing) this.bytes += FAMILY_OVERHEAD + name.length;
    return false;
  }

  private declareType(name: string, type: string, lineNo: number): void {
    if (!TYPES.has(type)) throw new ExpositionError(lineNo, `unknown metric type for ${name}`);
    const metricType = type as MetricType;
    const b = this.families.get(name);
    if (b?.typeDeclared) {
      if (b.family.type !== metricType) {
        throw new ExpositionError(
          lineNo,
          `family ${name} declared twice with different TYPE (${b.family.type}, then ${metricType})`,
        );
      }
      return;
    }
    // A TYPE arriving after samples would retype (or regroup) what was already read.
    const suffixes = metricType === 'histogram' || metricType === 'summary' ? ['', '_bucket', '_sum', '_count'] : [''];
    for (const suffix of suffixes) {
      if ((this.families.get(name + suffix)?.family.samples.length ?? 0) > 0) {
        throw new ExpositionError(lineNo, `TYPE line for ${name} after its samples`);
      }
    }
    const target = b ?? this.newFamily(name);
    target.family.type = metricType;
    target.typeDeclared = true;
  }

  private newFamily(name: string): FamilyBuilder {
    const b: FamilyBuilder = { family: { name: copied(name), type: 'untyped', samples: [] }, typeDeclared: false };
    this.families.set(name, b);
    return b;
  }

  /** Histogram and summary samples carry suffixes; they belong to the declared base family. */
  private familyFor(sampleName: string): FamilyBuilder | undefined {
    for (const suffix of ['_bucket', '_sum', '_count']) {
      if (!sampleName.endsWith(suffix)) continue;
      const base = this.families.get(sampleName.slice(0, -suffix.length));
      const t = base?.family.type;
      if (base && (t === 'histogram' || (t === 'summary' && suffix !== '_bucket'))) return base;
    }
    return this.families.get(sampleName);
  }
}

/** HELP escapes `\\` and `\n`; any other backslash is kept as written (HELP is free text). Cut at `max`. */
function unescapeHelp(text: string, max: number): string {
  // Cut before unescaping too, so a megabyte of HELP is never copied whole.
  const head = Number.isFinite(max) ? text.slice(0, 2 * max) : text;
  return head.replace(/\\([\\n])/g, (_, c: string) => (c === 'n' ? '\n' : '\\')).slice(0, max);
}

/**
 * A string of its own. Substrings V8 cuts from the body (names, label values) keep the whole body
 * alive for as long as they live (until the node's next poll): a 10 MB answer would be held in
 * full although the budget keeps 512 KiB of it. Short strings are copied by V8 anyway.
 */
function copied(s: string): string {
  return s.length < 13 ? s : (' ' + s).slice(1);
}

/** Gives a kept sample's strings their own storage (see copied). */
function own(sample: Sample): void {
  sample.name = copied(sample.name);
  const labels: Record<string, string> = {};
  for (const k of Object.keys(sample.labels)) {
    const key = copied(k);
    const value = copied(sample.labels[k] ?? '');
    if (key === '__proto__')
      Object.defineProperty(labels, key, { value, enumerable: true, writable: true, configurable: true });
    else labels[key] = value;
  }
  sample.labels = labels;
}
