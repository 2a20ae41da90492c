// The scrape side of upstream re-exposition: every node's prepared families merged into one
// exposition, one HELP/TYPE block per family, copying each node's ready bytes. Which node's
// family goes where is decided by the families alone (a plan's, shared by every answer of one
// shape), so the decision is kept and reused while every node still sends the families it sent
// at the last scrape: a scrape then only copies (10,000 nodes: ~60,000 map lookups saved).
import type { MetricType } from './types.js';
import type { PreparedFamily, PreparedUpstream } from './upstream.js';

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

/**
 * One output family: its headers and, per node sending it, the node's index and the family's index in that node's
 * lines.
 */
interface MergedFamily {
  first: PreparedFamily;
  help: PreparedFamily | undefined;
  picks: number[];
}

/** Where every node's families go, valid for sources with these families and names, in this order. */
export interface MergeLayout {
  readonly keys: ReadonlyArray<readonly PreparedFamily[]>;
  readonly nodes: readonly string[];
  /** Families sorted by name. */
  readonly families: readonly MergedFamily[];
  readonly conflicts: readonly UpstreamConflict[];
}

/**
 * Sample lines (each ends in a newline; escaped label values hold none) of family `i` (counted only for a conflict).
 */
function familySamples(p: PreparedUpstream, i: number): number {
  let n = 0;
  const end = p.ends[i] ?? 0;
  for (let at = p.bytes.indexOf(10, i > 0 ? p.ends[i - 1] : 0); at >= 0 && at < end; at = p.bytes.indexOf(10, at + 1))
    n++;
  return n;
}

/** Whether `layout` was made for sources bringing the same families, under the same names, in the same order. */
function fits(layout: MergeLayout | undefined, sources: readonly PreparedUpstream[]): layout is MergeLayout {
  if (!layout || layout.keys.length !== sources.length) return false;
  for (let k = 0; k < sources.length; k++) {
    if (sources[k]!.families !== layout.keys[k] || sources[k]!.node !== layout.nodes[k]) return false;
  }
  return true;
}

/**
 * The first node (in order) to send a name wins it; later clashes become conflicts. `previous`
 * is returned as it is when it still fits the sources (a conflict's sample count follows from
 * the family's plan, like everything else here).
 */
export function mergeLayout(sources: readonly PreparedUpstream[], previous?: MergeLayout): MergeLayout {
  if (fits(previous, sources)) return previous;
  const conflicts: UpstreamConflict[] = [];
  const byName = new Map<string, MergedFamily>();
  /** Every claimed name -> the family that claimed it. */
  const claimedBy = new Map<string, PreparedFamily>();
  for (let k = 0; k < sources.length; k++) {
    const source = sources[k]!;
    const { families } = source;
    for (let i = 0; i < families.length; i++) {
      const family = families[i]!;
      const { name } = family;
      const entry = byName.get(name);
      if (entry) {
        if (entry.first.type !== family.type) {
          conflicts.push({
            family: name,
            node: source.node,
            reason: 'type_mismatch',
            type: family.type,
            keptType: entry.first.type,
            samples: familySamples(source, i),
          });
          continue;
        }
        if (entry.help === undefined && family.textHelpLine !== '') entry.help = family;
        entry.picks.push(k, i);
        continue;
      }
      const owner = family.claims.map((c) => claimedBy.get(c)).find((f) => f !== undefined && f.name !== name);
      if (owner) {
        conflicts.push({
          family: name,
          node: source.node,
          reason: 'name_collision',
          type: family.type,
          keptType: owner.type,
          samples: familySamples(source, i),
        });
        continue;
      }
      for (const c of family.claims) claimedBy.set(c, family);
      byName.set(name, { first: family, help: family.textHelpLine !== '' ? family : undefined, picks: [k, i] });
    }
  }
  const names = [...byName.keys()].sort();
  return {
    keys: sources.map((s) => s.families),
    nodes: sources.map((s) => s.node),
    families: names.map((n) => byName.get(n)!),
    conflicts,
  };
}

/** Writes the merged exposition of `sources` as `layout` (made for them) places it. */
export function writeMerged(
  layout: MergeLayout,
  sources: readonly PreparedUpstream[],
  opts: RenderOptions & { write: (piece: string) => void },
): void {
  const it = mergedSteps(layout, sources, opts);
  while (it.next().done !== true) continue;
}

/** Nodes' lines of one family written in one step (a family of a large fleet is megabytes). */
const STEP_PICKS = 512;

/**
 * writeMerged in steps: a streamed scrape may pause between two families, and within a family
 * every STEP_PICKS nodes. The sources' bytes are never written again (a new answer brings new
 * ones), so a pause changes nothing here.
 */
export function* mergedSteps(
  layout: MergeLayout,
  sources: readonly PreparedUpstream[],
  opts: RenderOptions & { write: (piece: string) => void },
): Generator<void, void, undefined> {
  const emit = opts.write;
  const emitRange =
    opts.writeRange ?? ((bytes: Buffer, start: number, end: number) => emit(bytes.toString('utf8', start, end)));
  for (const { first, help, picks } of layout.families) {
    if (opts.openMetrics) {
      emit(help?.openMetricsHelpLine ?? '');
      emit(first.openMetricsTypeLine);
    } else {
      emit(help?.textHelpLine ?? '');
      emit(first.textTypeLine);
    }
    for (let j = 0; j < picks.length; j += 2) {
      const { bytes, ends } = sources[picks[j]!]!;
      const i = picks[j + 1]!;
      emitRange(bytes, i > 0 ? ends[i - 1]! : 0, ends[i]!);
      if (j % (2 * STEP_PICKS) === 2 * STEP_PICKS - 2) yield;
    }
    yield;
  }
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
  const list = [...sources];
  const layout = mergeLayout(list);
  const out: string[] = [];
  // With a sink the pieces go straight out (a large fleet's scrape builds no joined string).
  writeMerged(layout, list, { ...opts, write: opts.write ?? ((piece: string) => void out.push(piece)) });
  return { text: out.join(''), conflicts: [...layout.conflicts] };
}

/** renderUpstreamWithStats without the conflict list. */
export function renderUpstream(sources: Iterable<PreparedUpstream>, opts: RenderOptions): string {
  return renderUpstreamWithStats(sources, opts).text;
}
