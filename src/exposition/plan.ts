// What a node's output lines are made of, apart from its name, network and values: per line the
// text before the node's labels and after them up to the value, and which value goes there. A
// plan is made from parsed families once per shape (and per set of secrets) and renders any
// answer of that shape for any node, so re-exposing an answer costs one string per family.
import type { MetricFamily, Sample } from './types.js';
import { familyHeaders, type FamilyHeaders } from './familyHeaders.js';
import { escapeLabelValue, formatValue, isValidMetricName } from './grammar.js';
import { seriesGroups } from './series.js';

/** `node`, `network`, `exported_node`, `exported_exported_network`, ...: the names renaming touches. */
const RENAMED_LABEL = /^(?:exported_)*(?:node|network)$/;

export interface PlanOptions {
  prefix: string;
  scrub?: (text: string) => string;
}

export interface UpstreamPlan {
  /** Output families in output order (those left without lines are left out). */
  families: FamilyHeaders[];
  /** Index after each family's last line. */
  lineEnds: number[];
  /** Per output line: `<prefix><sample name>{`. */
  heads: string[];
  /** Per output line: the upstream labels, renamed and escaped, then `} `. */
  rests: string[];
  /** Per output line: index of its value (samples in line order). */
  sources: number[];
  /** Samples left out because a label value held a secret of ours. */
  droppedSecretSamples: number;
  /** Every head and rest is ASCII. */
  ascii: boolean;
}

/**
 * Upstream timestamps are dropped on purpose: we re-expose what we scraped, and Prometheus stamps
 * it with our scrape time (an old upstream timestamp would also make Prometheus reject the sample
 * as out of order once the node restarts its clock source). Families without samples are left
 * out. `samples` (default: family after family) gives each sample's value index.
 */
export function planUpstream(
  families: readonly MetricFamily[],
  samples: readonly Sample[] | undefined,
  opts: PlanOptions,
): UpstreamPlan {
  const { prefix } = opts;
  if (prefix !== '' && !isValidMetricName(prefix))
    throw new TypeError('upstream prefix is not a valid metric name start');
  const indexOf = new Map<Sample, number>((samples ?? families.flatMap((f) => f.samples)).map((s, i) => [s, i]));
  const leaks = secretCheck(opts.scrub);
  const plan: UpstreamPlan = {
    families: [],
    lineEnds: [],
    heads: [],
    rests: [],
    sources: [],
    droppedSecretSamples: 0,
    ascii: true,
  };
  const names = new Set<string>();
  for (const family of families) {
    const name = prefix + family.name;
    // The same family twice in one input (callers that merge lists) keeps the first.
    if (family.samples.length === 0 || names.has(name)) continue;
    const before = plan.heads.length;
    for (const group of seriesGroups(family)) {
      if (group.some((s) => leaks(s))) plan.droppedSecretSamples += group.length;
      else for (const sample of group) addLine(plan, prefix, sample, indexOf.get(sample)!);
    }
    if (plan.heads.length === before) continue;
    const help = family.help !== undefined && opts.scrub ? opts.scrub(family.help) : family.help;
    names.add(name);
    plan.families.push(familyHeaders(name, family.type, help));
    plan.lineEnds.push(plan.heads.length);
  }
  return plan;
}

/**
 * Upstream labels named like ours (`node`, `network`, or those with any number of `exported_`
 * prefixes) get one more `exported_` prefix. Unlike Prometheus's rule (prefix only on a clash),
 * this is one-to-one: `x{node="a"}` and `x{exported_node="a"}` stay two series.
 */
function addLine(plan: UpstreamPlan, prefix: string, sample: Sample, source: number): void {
  let rest = '';
  for (const name of Object.keys(sample.labels)) {
    const outName = RENAMED_LABEL.test(name) ? `exported_${name}` : name;
    rest += `,${outName}="${escapeLabelValue(sample.labels[name] ?? '')}"`;
  }
  const head = `${prefix}${sample.name}{`;
  plan.heads.push(head);
  plan.rests.push(`${rest}} `);
  plan.sources.push(source);
  plan.ascii &&= ASCII.test(head) && ASCII.test(rest);
}

const ASCII = /^[\x00-\x7f]*$/;

/** One node's lines, family after family, as one Buffer and where each family's lines end in it. */
export function renderPlan(
  plan: UpstreamPlan,
  node: string,
  network: string,
  values: ArrayLike<number>,
): { bytes: Buffer; ends: number[] } {
  const target = `node="${escapeLabelValue(node)}",network="${escapeLabelValue(network)}"`;
  const { heads, rests, sources, lineEnds } = plan;
  const ends: number[] = [];
  let text = '';
  let line = 0;
  for (const end of lineEnds) {
    for (; line < end; line++)
      text += heads[line]! + target + rests[line]! + formatValue(values[sources[line]!]!) + '\n';
    ends.push(text.length);
  }
  // One allocation per node, outside the pooled slabs: a pooled slice would keep its whole 8 KiB slab alive.
  if (plan.ascii && ASCII.test(target)) {
    // A character is a byte: the ends are right as they are, and latin1 is a plain copy.
    const bytes = Buffer.allocUnsafeSlow(text.length);
    bytes.write(text, 0, 'latin1');
    return { bytes, ends };
  }
  return encodeUtf8(text, ends);
}

/** `text` as UTF-8, with its character offsets `ends` turned into byte offsets. */
function encodeUtf8(text: string, ends: number[]): { bytes: Buffer; ends: number[] } {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  const byteEnds: number[] = [];
  let at = 0;
  let from = 0;
  for (const end of ends) {
    at += bytes.write(text.slice(from, end), at, 'utf8');
    byteEnds.push(at);
    from = end;
  }
  return { bytes, ends: byteEnds };
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
