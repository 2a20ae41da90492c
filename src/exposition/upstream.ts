// Re-exposition of each node's own /metrics families as `ledger_upstream_<family>`, with the
// exporter's `node` and `network` labels added. All string work happens in prepareUpstream,
// once per successful probe; renderUpstream, on the scrape path, only joins prepared strings.
import type { MetricFamily, MetricType, Sample } from '../domain.js';
import { familyHeaders, type FamilyHeaders } from './familyHeaders.js';
import { escapeLabelValue, formatValue, isValidMetricName } from './grammar.js';
import { seriesGroups } from './series.js';

export const DEFAULT_UPSTREAM_PREFIX = 'ledger_upstream_';

/** Labels the exporter sets itself; upstream labels of the same name are renamed. */
const TARGET_LABELS = ['node', 'network'] as const;
/** `node`, `network`, `exported_node`, `exported_exported_network`, ...: the names renaming touches. */
const RENAMED_LABEL = /^(?:exported_)*(?:node|network)$/;

export interface PreparedFamily extends FamilyHeaders {
  /** Output family name (prefix + upstream name), as declared in the text format. */
  name: string;
  type: MetricType;
  /**
   * This node's series lines, each ending in a newline; identical in both formats. UTF-8 bytes
   * once encoded for the scrape path (encodeUpstream), so a scrape only copies them.
   */
  lines: string | Buffer;
  /** Number of sample lines in `lines`. */
  sampleCount: number;
}

export interface PreparedUpstream {
  node: string;
  network: string;
  families: Map<string, PreparedFamily>;
  /** Samples left out because a label value held a secret of ours. */
  droppedSecretSamples: number;
}

export interface UpstreamConflict {
  /** Output family name that was skipped for this node. */
  family: string;
  node: string;
  /** `type_mismatch`: another node sent the family first with another TYPE;
   *  `name_collision`: a name the family would use (family or sample name, in either format) is another family's. */
  reason: 'type_mismatch' | 'name_collision';
  type: MetricType;
  /** Type of the family that was kept under that name. */
  keptType: MetricType;
  /** Sample lines of this node left out with it. */
  samples: number;
}

export interface UpstreamRender {
  text: string;
  /** Families left out, one entry per node and family. */
  conflicts: UpstreamConflict[];
}

export interface PrepareOptions {
  prefix?: string;
  /**
   * Returns its input with any secret of ours replaced. A node echoing our request headers or
   * URL credentials into its metrics must not re-expose them: such a series is dropped (a
   * replaced value could make two series identical) and HELP text is scrubbed.
   */
  scrub?: (text: string) => string;
}

/**
 * Builds a node's output lines. Upstream timestamps are dropped on purpose: we re-expose what we
 * scraped, and Prometheus stamps it with our scrape time (an old upstream timestamp would also
 * make Prometheus reject the sample as out of order once the node restarts its clock source).
 * Families without samples are left out.
 */
export function prepareUpstream(node: string, network: string, families: MetricFamily[], opts: PrepareOptions = {}): PreparedUpstream {
  const prefix = opts.prefix ?? DEFAULT_UPSTREAM_PREFIX;
  if (prefix !== '' && !isValidMetricName(prefix)) throw new TypeError('upstream prefix is not a valid metric name start');
  const targetLabels = `node="${escapeLabelValue(node)}",network="${escapeLabelValue(network)}"`;
  const leaks = secretCheck(opts.scrub);
  const out = new Map<string, PreparedFamily>();
  let droppedSecretSamples = 0;
  for (const family of families) {
    const name = prefix + family.name;
    // The same family twice in one input (callers that merge lists) keeps the first.
    if (family.samples.length === 0 || out.has(name)) continue;
    const parts: string[] = [];
    for (const group of seriesGroups(family)) {
      if (group.some((s) => leaks(s))) droppedSecretSamples += group.length;
      else for (const sample of group) parts.push(sampleLine(prefix, sample, targetLabels));
    }
    if (parts.length === 0) continue;
    const help = family.help !== undefined && opts.scrub ? opts.scrub(family.help) : family.help;
    // Joined once: a flat string, not a rope holding every sample line (this is kept until the
    // node's next poll, across thousands of nodes).
    out.set(name, { name, type: family.type, lines: parts.join(''), sampleCount: parts.length, ...familyHeaders(name, family.type, help) });
  }
  return { node, network, families: out, droppedSecretSamples };
}

function secretCheck(scrub: ((text: string) => string) | undefined): (s: Sample) => boolean {
  if (!scrub) return () => false;
  // Label values repeat a lot within one answer (le, method, path): check each once.
  const seen = new Map<string, boolean>();
  const leaks = (v: string): boolean => {
    let r = seen.get(v);
    if (r === undefined) {
      r = scrub(v) !== v;
      seen.set(v, r);
    }
    return r;
  };
  return (s) => Object.values(s.labels).some(leaks);
}

/**
 * Upstream labels named like ours (`node`, `network`, or those with any number of `exported_`
 * prefixes) get one more `exported_` prefix. Unlike Prometheus's rule (prefix only on a clash),
 * this is one-to-one: `x{node="a"}` and `x{exported_node="a"}` stay two series.
 */
function sampleLine(prefix: string, sample: Sample, targetLabels: string): string {
  let labels = targetLabels;
  for (const name of Object.keys(sample.labels)) {
    const outName = RENAMED_LABEL.test(name) ? `exported_${name}` : name;
    labels += `,${outName}="${escapeLabelValue(sample.labels[name] ?? '')}"`;
  }
  return `${prefix}${sample.name}{${labels}} ${formatValue(sample.value)}\n`;
}

interface Entry {
  first: PreparedFamily;
  help: PreparedFamily | undefined;
  parts: Array<string | Buffer>;
}

/** First node (in iteration order) to send a name wins it; later clashes become conflicts. */
function mergeSources(sources: Iterable<PreparedUpstream>, conflicts: UpstreamConflict[]): Map<string, Entry> {
  const byName = new Map<string, Entry>();
  /** Every claimed name -> the family that claimed it. */
  const claimedBy = new Map<string, PreparedFamily>();
  for (const source of sources) {
    for (const [name, family] of source.families) {
      const entry = byName.get(name);
      if (entry) {
        if (entry.first.type !== family.type) {
          conflicts.push({ family: name, node: source.node, reason: 'type_mismatch', type: family.type, keptType: entry.first.type, samples: family.sampleCount });
          continue;
        }
        if (entry.help === undefined && family.textHelpLine !== '') entry.help = family;
        entry.parts.push(family.lines);
        continue;
      }
      const owner = family.claims.map((c) => claimedBy.get(c)).find((f) => f !== undefined && f.name !== name);
      if (owner) {
        conflicts.push({ family: name, node: source.node, reason: 'name_collision', type: family.type, keptType: owner.type, samples: family.sampleCount });
        continue;
      }
      for (const c of family.claims) claimedBy.set(c, family);
      byName.set(name, { first: family, help: family.textHelpLine !== '' ? family : undefined, parts: [family.lines] });
    }
  }
  return byName;
}

export interface RenderOptions {
  openMetrics: boolean;
  /** Sink for the text pieces (default: joined into UpstreamRender.text). */
  write?: (piece: string) => void;
  /** Sink for lines already encoded; without it they are decoded and go to `write`. */
  writeBytes?: (bytes: Buffer) => void;
}

/**
 * Encodes a node's prepared lines as UTF-8 into one Buffer (one allocation per node), so the
 * scrape copies bytes instead of encoding strings. Done when the node's answer arrives.
 */
export function encodeUpstream(prepared: PreparedUpstream): PreparedUpstream {
  let total = 0;
  for (const f of prepared.families.values()) total += typeof f.lines === 'string' ? Buffer.byteLength(f.lines) : f.lines.length;
  const buf = Buffer.allocUnsafeSlow(total);
  let at = 0;
  const families = new Map<string, PreparedFamily>();
  for (const [name, f] of prepared.families) {
    const start = at;
    at += typeof f.lines === 'string' ? buf.write(f.lines, at, 'utf8') : f.lines.copy(buf, at);
    families.set(name, { ...f, lines: buf.subarray(start, at) });
  }
  return { ...prepared, families };
}

/**
 * One HELP/TYPE block per family over all nodes, families sorted by name, then each node's
 * series in iteration order. The first node (in iteration order) to send a family fixes its
 * TYPE; another node's family of the same name but another TYPE, or one whose family or sample
 * names clash with a family already taken (in either format, so both formats expose the same
 * series), is skipped and listed in `conflicts`. HELP comes from the first node that has one.
 * In OpenMetrics mode no `# EOF` is written: the caller appends it after its own metrics.
 */
export function renderUpstreamWithStats(sources: Iterable<PreparedUpstream>, opts: RenderOptions): UpstreamRender {
  const conflicts: UpstreamConflict[] = [];
  const byName = mergeSources(sources, conflicts);
  const out: string[] = [];
  // With a sink the pieces go straight out (a large fleet's scrape builds no joined string).
  const emitText = opts.write ?? ((piece: string) => void out.push(piece));
  const { writeBytes } = opts;
  const emit = (piece: string | Buffer) => {
    if (typeof piece === 'string') emitText(piece);
    else if (writeBytes) writeBytes(piece);
    else emitText(piece.toString('utf8'));
  };
  for (const name of [...byName.keys()].sort()) {
    const entry = byName.get(name);
    if (!entry) continue;
    const { first, help } = entry;
    if (opts.openMetrics) {
      emit(help?.openMetricsHelpLine ?? '');
      emit(first.openMetricsTypeLine);
    } else {
      emit(help?.textHelpLine ?? '');
      emit(first.textTypeLine);
    }
    for (const part of entry.parts) emit(part);
  }
  return { text: out.join(''), conflicts };
}

/** renderUpstreamWithStats without the conflict list. */
export function renderUpstream(sources: Iterable<PreparedUpstream>, opts: RenderOptions): string {
  return renderUpstreamWithStats(sources, opts).text;
}
