// Re-exposition of each node's own /metrics families as `ledger_upstream_<family>`, with the
// exporter's `node` and `network` labels added. All string work happens in prepareUpstream,
// once per successful probe; the scrape (upstreamMerge.ts) only copies prepared bytes.
import type { MetricFamily, Sample } from './types.js';
import { familyHeaders, type FamilyHeaders } from './familyHeaders.js';
import { escapeLabelValue, formatValue, isValidMetricName } from './grammar.js';
import { seriesGroups } from './series.js';

export const DEFAULT_UPSTREAM_PREFIX = 'ledger_upstream_';

/** `node`, `network`, `exported_node`, `exported_exported_network`, ...: the names renaming touches. */
const RENAMED_LABEL = /^(?:exported_)*(?:node|network)$/;

/** An output family: its name, type, header lines and claimed names, shared by every node sending it. */
export type PreparedFamily = FamilyHeaders;

/**
 * A node's families as the scrape needs them, kept until its next answer. Lean on purpose (it
 * lives across polls for every node and dies old): one Buffer of lines, the shared headers and
 * the end offsets; no object or string per family.
 */
export interface PreparedUpstream {
  node: string;
  network: string;
  /** Every family's series lines as UTF-8, family after family; identical in both formats. */
  bytes: Buffer;
  /** The families in `bytes` order (without samples, none). */
  families: readonly PreparedFamily[];
  /** Where each family's lines end in `bytes` (the next family's start). */
  ends: readonly number[];
  /** Samples left out because a label value held a secret of ours. */
  droppedSecretSamples: number;
}

/**
 * A node's last /metrics answer, as the node keeps it. Its parsed families are read once, when
 * the upstream view prepares the node's lines (FleetUpstream.prepare), and then released: they
 * hold several times the memory of the lines and would otherwise live until the next poll.
 */
export interface UpstreamAnswer {
  families: MetricFamily[] | undefined;
  prepared: PreparedUpstream | undefined;
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
  const kept: PreparedFamily[] = [];
  const names = new Set<string>();
  const texts: string[] = [];
  let droppedSecretSamples = 0;
  for (const family of families) {
    const name = prefix + family.name;
    // The same family twice in one input (callers that merge lists) keeps the first.
    if (family.samples.length === 0 || names.has(name)) continue;
    let lines = '';
    for (const group of seriesGroups(family)) {
      if (group.some((s) => leaks(s))) droppedSecretSamples += group.length;
      else for (const sample of group) lines += sampleLine(prefix, sample, targetLabels);
    }
    if (lines === '') continue;
    const help = family.help !== undefined && opts.scrub ? opts.scrub(family.help) : family.help;
    names.add(name);
    kept.push(familyHeaders(name, family.type, help));
    texts.push(lines);
  }
  const { bytes, ends } = encode(texts);
  return { node, network, bytes, families: kept, ends, droppedSecretSamples };
}

/** One allocation per node, outside the pooled slabs: a pooled slice would keep its whole 8 KiB slab alive. */
function encode(texts: string[]): { bytes: Buffer; ends: number[] } {
  let total = 0;
  for (const t of texts) total += Buffer.byteLength(t);
  const bytes = Buffer.allocUnsafeSlow(total);
  const ends: number[] = [];
  let at = 0;
  for (const t of texts) {
    at += bytes.write(t, at, 'utf8');
    ends.push(at);
  }
  return { bytes, ends };
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
