// The scrape side of upstream re-exposition: every node's prepared families merged into one
// exposition, one HELP/TYPE block per family, copying each node's ready bytes.
import type { MetricType } from './types.js';
import type { PreparedFamily, PreparedUpstream } from './upstream.js';

/** Sample lines (each ends in a newline; escaped label values hold none) of family `i` (counted only for a conflict). */
function familySamples(p: PreparedUpstream, i: number): number {
  let n = 0;
  const end = p.ends[i] ?? 0;
  for (let at = p.bytes.indexOf(10, i > 0 ? p.ends[i - 1] : 0); at >= 0 && at < end; at = p.bytes.indexOf(10, at + 1)) n++;
  return n;
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

export interface RenderOptions {
  openMetrics: boolean;
  /** Sink for the text pieces (default: joined into UpstreamRender.text). */
  write?: (piece: string) => void;
  /** Sink for a range of a node's encoded lines; without it they are decoded and go to `write`. */
  writeRange?: (bytes: Buffer, start: number, end: number) => void;
}

interface Entry {
  first: PreparedFamily;
  help: PreparedFamily | undefined;
  /** Each node's lines of this family: its bytes, start and end, flat. */
  ranges: Array<Buffer | number>;
}

/** First node (in iteration order) to send a name wins it; later clashes become conflicts. */
function mergeSources(sources: Iterable<PreparedUpstream>, conflicts: UpstreamConflict[]): Map<string, Entry> {
  const byName = new Map<string, Entry>();
  /** Every claimed name -> the family that claimed it. */
  const claimedBy = new Map<string, PreparedFamily>();
  for (const source of sources) {
    const { families, ends, bytes } = source;
    for (let i = 0; i < families.length; i++) {
      const family = families[i]!;
      const { name } = family;
      const start = i > 0 ? ends[i - 1]! : 0;
      const entry = byName.get(name);
      if (entry) {
        if (entry.first.type !== family.type) {
          conflicts.push({ family: name, node: source.node, reason: 'type_mismatch', type: family.type, keptType: entry.first.type, samples: familySamples(source, i) });
          continue;
        }
        if (entry.help === undefined && family.textHelpLine !== '') entry.help = family;
        entry.ranges.push(bytes, start, ends[i]!);
        continue;
      }
      const owner = family.claims.map((c) => claimedBy.get(c)).find((f) => f !== undefined && f.name !== name);
      if (owner) {
        conflicts.push({ family: name, node: source.node, reason: 'name_collision', type: family.type, keptType: owner.type, samples: familySamples(source, i) });
        continue;
      }
      for (const c of family.claims) claimedBy.set(c, family);
      byName.set(name, { first: family, help: family.textHelpLine !== '' ? family : undefined, ranges: [bytes, start, ends[i]!] });
    }
  }
  return byName;
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
  const emit = opts.write ?? ((piece: string) => void out.push(piece));
  const emitRange = opts.writeRange ?? ((bytes: Buffer, start: number, end: number) => emit(bytes.toString('utf8', start, end)));
  for (const name of [...byName.keys()].sort()) {
    const entry = byName.get(name);
    if (!entry) continue;
    const { first, help, ranges } = entry;
    if (opts.openMetrics) {
      emit(help?.openMetricsHelpLine ?? '');
      emit(first.openMetricsTypeLine);
    } else {
      emit(help?.textHelpLine ?? '');
      emit(first.textTypeLine);
    }
    for (let k = 0; k < ranges.length; k += 3) emitRange(ranges[k] as Buffer, ranges[k + 1] as number, ranges[k + 2] as number);
  }
  return { text: out.join(''), conflicts };
}

/** renderUpstreamWithStats without the conflict list. */
export function renderUpstream(sources: Iterable<PreparedUpstream>, opts: RenderOptions): string {
  return renderUpstreamWithStats(sources, opts).text;
}
