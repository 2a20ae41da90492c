// Families with one series per node (thousands) registered among prom-client's own metrics but
// written as text: prom-client hashes every label set on each inc/set and formats each value,
// ~10 ms per 1,000 nodes per scrape. A TextFamily works in any Registry (prom-client formats the
// values it returns from get()); in a FamilyRegistry it writes its lines itself, byte for byte
// what prom-client would write.
import { Registry, type Metric } from '../deps/promClient.js';

export interface TextSample {
  /** Label names and values, in output order. */
  labels: Array<[string, string]>;
  value: number;
}

export interface TextFamilySpec {
  /** Name as registered (a counter's with `_total`, as prom-client takes it). */
  name: string;
  help: string;
  type: 'counter' | 'gauge';
  /** The label names its samples carry, in output order (documentation reads them, as prom-client's labelNames). */
  labelNames: readonly string[];
  /** Calls `emit` once per sample, in output order; read at every scrape. `emit` reads `labels` before it returns. */
  collect(emit: (labels: Array<[string, string]>, value: number) => void): void;
}

const TEXT_FAMILY = Symbol('textFamily');

/**
 * prom-client's escaping (registry.js), so both paths write the same bytes; most strings need none (one test instead of
 * three replaces per label, per node, per scrape).
 */
const escapeString = (s: string) => (/[\\\n]/.test(s) ? s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n') : s);
const escapeLabel = (s: string) => (/[\\\n"]/.test(s) ? escapeString(s).replace(/"/g, '\\"') : s);
const valueString = (v: number) => (Number.isNaN(v) ? 'Nan' : !Number.isFinite(v) ? (v < 0 ? '-Inf' : '+Inf') : `${v}`);

class TextFamily {
  readonly [TEXT_FAMILY] = true;
  /** prom-client renames an OpenMetrics counter in place (`name` without `_total`). */
  name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge';
  readonly labelNames: readonly string[];
  readonly aggregator = 'sum';
  /** Per format (text, OpenMetrics): the last text and the samples it was written from. */
  private readonly kept: Array<(Emitted & { text: string }) | undefined> = [undefined, undefined];

  constructor(private readonly spec: TextFamilySpec) {
    this.name = spec.name;
    this.help = spec.help;
    this.type = spec.type;
    this.labelNames = spec.labelNames;
  }

  /** prom-client's metric shape, for registries that format values themselves. */
  get() {
    const values: Array<{ labels: Record<string, string>; value: number }> = [];
    this.spec.collect((labels, value) => values.push({ labels: Object.fromEntries(labels), value }));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {}

  /**
   * What Registry.getMetricsAsString returns for this family: no trailing newline. A scrape whose
   * samples are the ones the last scrape of this format emitted (same label strings, same values:
   * per-node counters that rarely move) gets the last text again: 10,000 lines joined anew cost
   * ~5 ms and ~3 MB of garbage per family and scrape.
   */
  text(openMetrics: boolean): string {
    const slot = openMetrics ? 1 : 0;
    const kept = this.kept[slot];
    let { labelCounts, strings, values }: Emitted = kept ?? { labelCounts: [], strings: [], values: [] };
    // Compared with what was kept until a sample differs, then recorded into fresh arrays.
    let recording = kept === undefined;
    let n = 0;
    let at = 0;
    this.spec.collect((labels, value) => {
      if (!recording) {
        let same = n < labelCounts.length && labelCounts[n] === labels.length && values[n] === value;
        for (let j = 0; same && j < labels.length; j++)
          same = strings[at + 2 * j] === labels[j]![0] && strings[at + 2 * j + 1] === labels[j]![1];
        if (same) {
          n++;
          at += 2 * labels.length;
          return;
        }
        ({ labelCounts, strings, values } = prefix({ labelCounts, strings, values }, n, at));
        recording = true;
      }
      labelCounts.push(labels.length);
      for (const [k, v] of labels) strings.push(k, v);
      values.push(value);
      n++;
      at += 2 * labels.length;
    });
    if (!recording && kept && n === labelCounts.length) return kept.text;
    if (!recording) ({ labelCounts, strings, values } = prefix({ labelCounts, strings, values }, n, at));
    const text = this.format(openMetrics, { labelCounts, strings, values });
    this.kept[slot] = { labelCounts, strings, values, text };
    return text;
  }

  private format(openMetrics: boolean, { labelCounts, strings, values }: Emitted): string {
    const base = openMetrics && this.type === 'counter' ? this.spec.name.replace(/_total$/, '') : this.spec.name;
    const sampleName = openMetrics && this.type === 'counter' ? `${base}_total` : base;
    const name = escapeString(base);
    const sample = `\n${escapeString(sampleName)}`;
    let out = `# HELP ${name} ${escapeString(this.help)}\n# TYPE ${name} ${this.type}`;
    let at = 0;
    labelCounts.forEach((count, i) => {
      let l = '';
      for (let j = 0; j < count; j++, at += 2)
        l += `${l === '' ? '' : ','}${strings[at]}="${escapeLabel(strings[at + 1]!)}"`;
      out += `${sample}${l === '' ? '' : `{${l}}`} ${valueString(values[i]!)}`;
    });
    return out;
  }
}

/** What collect() emitted, flat: per sample its label count and value; every label's name and value in order. */
interface Emitted {
  labelCounts: number[];
  strings: string[];
  values: number[];
}

/** The first `samples` samples (`strings` strings) of `e`, in new arrays. */
const prefix = (e: Emitted, samples: number, strings: number): Emitted => ({
  labelCounts: e.labelCounts.slice(0, samples),
  strings: e.strings.slice(0, strings),
  values: e.values.slice(0, samples),
});

/** Registers a family written as text in `registry` (formatted by prom-client in a plain Registry). */
export function registerTextFamily(registry: Registry, spec: TextFamilySpec): void {
  registry.registerMetric(new TextFamily(spec) as unknown as Metric);
}

/** A Registry that lets TextFamily write its own lines. */
export class FamilyRegistry extends Registry {
  constructor(contentType: string) {
    // prom-client's typings omit the constructor's content-type argument.
    super(...([contentType] as unknown as []));
  }

  async getMetricsAsString(metric: Metric): Promise<string> {
    if ((metric as unknown as { [TEXT_FAMILY]?: boolean })[TEXT_FAMILY])
      return (metric as unknown as TextFamily).text((this.contentType as string) === Registry.OPENMETRICS_CONTENT_TYPE);
    return (
      Registry.prototype as unknown as { getMetricsAsString(m: Metric): Promise<string> }
    ).getMetricsAsString.call(this, metric);
  }
}
