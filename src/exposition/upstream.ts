// Re-exposition of each node's own /metrics families as `ledger_upstream_<family>`, with the
// exporter's `node` and `network` labels added. All string work happens in prepareUpstream,
// once per successful probe; renderUpstream, on the scrape path, only joins prepared strings.
import type { MetricFamily, MetricType, Sample } from '../domain.js';
import { escapeHelpOpenMetrics, escapeHelpText, escapeLabelValue, formatValue, isValidMetricName } from './grammar.js';
import { seriesGroups } from './series.js';

export const DEFAULT_UPSTREAM_PREFIX = 'ledger_upstream_';

/** Labels the exporter sets itself; upstream labels of the same name are renamed. */
const TARGET_LABELS = ['node', 'network'] as const;

export interface PreparedFamily {
  /** Output family name (prefix + upstream name), as declared in the text format. */
  name: string;
  type: MetricType;
  /** Upstream HELP text, unescaped; absent when the node sent none. */
  help?: string;
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
  /** This node's series lines, each ending in a newline; identical in both formats. */
  lines: string;
  /** Number of sample lines in `lines`. */
  sampleCount: number;
}

export interface PreparedUpstream {
  node: string;
  network: string;
  families: Map<string, PreparedFamily>;
}

export interface UpstreamConflict {
  /** Output family name that was skipped for this node. */
  family: string;
  node: string;
  /** `type_mismatch`: another node sent the family first with another TYPE;
   *  `name_collision`: in OpenMetrics the family's name equals another family's (counter `x_total` vs `x`). */
  reason: 'type_mismatch' | 'name_collision';
  type: MetricType;
  /** Type of the family that was kept under that name. */
  keptType: MetricType;
}

export interface UpstreamRender {
  text: string;
  /** Families left out, one entry per node and family. */
  conflicts: UpstreamConflict[];
}

/**
 * Builds a node's output lines. Upstream timestamps are dropped on purpose: we re-expose what we
 * scraped, and Prometheus stamps it with our scrape time (an old upstream timestamp would also
 * make Prometheus reject the sample as out of order once the node restarts its clock source).
 * Families without samples are left out.
 */
export function prepareUpstream(
  node: string,
  network: string,
  families: MetricFamily[],
  opts: { prefix?: string } = {},
): PreparedUpstream {
  const prefix = opts.prefix ?? DEFAULT_UPSTREAM_PREFIX;
  if (prefix !== '' && !isValidMetricName(prefix)) throw new TypeError('upstream prefix is not a valid metric name start');
  const targetLabels = `node="${escapeLabelValue(node)}",network="${escapeLabelValue(network)}"`;
  const out = new Map<string, PreparedFamily>();
  for (const family of families) {
    if (family.samples.length === 0) continue;
    const name = prefix + family.name;
    const parts: string[] = [];
    for (const group of seriesGroups(family)) {
      for (const sample of group) parts.push(sampleLine(prefix, sample, targetLabels));
    }
    // Joined once: a flat string, not a rope holding every sample line (this is kept until the
    // node's next poll, across thousands of nodes).
    const prepared = { name, type: family.type, lines: parts.join(''), sampleCount: parts.length, ...headers(name, family) };
    // The same family twice in one input (callers that merge lists) keeps the first.
    if (!out.has(name)) out.set(name, prepared);
  }
  return { node, network, families: out };
}

type FamilyHeaders = Omit<PreparedFamily, 'name' | 'type' | 'lines' | 'sampleCount'>;

/** Header lines are the same for every node sending a family: built once, shared (bounded cache). */
const headerCache = new Map<string, FamilyHeaders>();
const HEADER_CACHE_MAX = 10_000;

function headers(name: string, family: MetricFamily): FamilyHeaders {
  const key = `${name}\u0000${family.type}\u0000${family.help ?? '\u0001'}`;
  let h = headerCache.get(key);
  if (!h) {
    if (headerCache.size >= HEADER_CACHE_MAX) headerCache.clear();
    h = buildHeaders(name, family);
    headerCache.set(key, h);
  }
  return h;
}

function buildHeaders(name: string, family: MetricFamily): FamilyHeaders {
  const counterWithTotal = family.type === 'counter' && name.endsWith('_total');
  const openMetricsName = counterWithTotal ? name.slice(0, -'_total'.length) : name;
  // An OpenMetrics counter's samples must end in _total; one that does not is exposed as unknown.
  const omType = family.type === 'untyped' || (family.type === 'counter' && !counterWithTotal) ? 'unknown' : family.type;
  const help = family.help;
  return {
    ...(help !== undefined ? { help } : {}),
    textHelpLine: help !== undefined ? `# HELP ${name} ${escapeHelpText(help)}\n` : '',
    textTypeLine: `# TYPE ${name} ${family.type}\n`,
    openMetricsName,
    openMetricsHelpLine: help !== undefined ? `# HELP ${openMetricsName} ${escapeHelpOpenMetrics(help)}\n` : '',
    openMetricsTypeLine: `# TYPE ${openMetricsName} ${omType}\n`,
  };
}

function sampleLine(prefix: string, sample: Sample, targetLabels: string): string {
  let labels = targetLabels;
  const upstreamNames = Object.keys(sample.labels);
  const taken = new Set<string>(TARGET_LABELS);
  for (const name of upstreamNames) {
    let outName = name;
    if ((TARGET_LABELS as readonly string[]).includes(name)) {
      // Prometheus's honor_labels=false rule: prefix `exported_` until the name is free.
      do outName = `exported_${outName}`;
      while (taken.has(outName) || upstreamNames.includes(outName));
    }
    taken.add(outName);
    labels += `,${outName}="${escapeLabelValue(sample.labels[name] ?? '')}"`;
  }
  return `${prefix}${sample.name}{${labels}} ${formatValue(sample.value)}\n`;
}

/**
 * One HELP/TYPE block per family over all nodes, families sorted by name, then each node's
 * series in iteration order. The first node (in iteration order) to send a family fixes its
 * TYPE; another node's family of the same name but another TYPE is skipped and listed in
 * `conflicts`. HELP comes from the first node that has one. In OpenMetrics mode no `# EOF` is
 * written: the caller appends it after its own metrics.
 */
export function renderUpstreamWithStats(sources: Iterable<PreparedUpstream>, opts: { openMetrics: boolean; write?: (piece: string) => void }): UpstreamRender {
  interface Entry {
    first: PreparedFamily;
    helpFrom?: PreparedFamily;
    parts: string[];
    nodes: string[];
  }
  const byName = new Map<string, Entry>();
  const conflicts: UpstreamConflict[] = [];
  for (const source of sources) {
    for (const [name, family] of source.families) {
      const entry = byName.get(name);
      if (!entry) {
        byName.set(name, {
          first: family,
          ...(family.help !== undefined ? { helpFrom: family } : {}),
          parts: [family.lines],
          nodes: [source.node],
        });
      } else if (entry.first.type !== family.type) {
        conflicts.push({ family: name, node: source.node, reason: 'type_mismatch', type: family.type, keptType: entry.first.type });
      } else {
        if (entry.helpFrom === undefined && family.help !== undefined) entry.helpFrom = family;
        entry.parts.push(family.lines);
        entry.nodes.push(source.node);
      }
    }
  }

  const out: string[] = [];
  // With a sink the pieces go straight out (a large fleet's scrape builds no joined string).
  const emit = opts.write ?? ((piece: string) => void out.push(piece));
  const omNames = new Map<string, MetricType>();
  for (const name of [...byName.keys()].sort()) {
    const entry = byName.get(name);
    if (!entry) continue;
    const { first, helpFrom } = entry;
    if (opts.openMetrics) {
      const keptType = omNames.get(first.openMetricsName);
      if (keptType !== undefined) {
        for (const node of entry.nodes) conflicts.push({ family: name, node, reason: 'name_collision', type: first.type, keptType });
        continue;
      }
      omNames.set(first.openMetricsName, first.type);
      emit(helpFrom?.openMetricsHelpLine ?? '');
      emit(first.openMetricsTypeLine);
    } else {
      emit(helpFrom?.textHelpLine ?? '');
      emit(first.textTypeLine);
    }
    for (const part of entry.parts) emit(part);
  }
  return { text: out.join(''), conflicts };
}

/** renderUpstreamWithStats without the conflict list. */
export function renderUpstream(sources: Iterable<PreparedUpstream>, opts: { openMetrics: boolean; write?: (piece: string) => void }): string {
  return renderUpstreamWithStats(sources, opts).text;
}
