// The upstream families of every node, as the scrape path needs them: prepared and encoded when
// the node's /metrics result arrives (prepare), so a scrape only merges ready bytes; what was
// left out (per-node budget, secrets, cross-node conflicts) is counted per node for the
// exporter's metrics.
import type { Registry } from 'prom-client';
import { registerTextFamily } from './textFamily.js';
import { planUpstream, type UpstreamPlan } from './plan.js';
import { parseDetailed } from './parse.js';
import { shapeText, type UpstreamShape } from './shape.js';
import {
  DEFAULT_UPSTREAM_PREFIX,
  preparedFromPlan,
  prepareUpstream,
  type PrepareOptions,
  type PreparedUpstream,
  type UpstreamAnswer,
} from './upstream.js';
import { mergeLayout, mergedSteps, type MergeLayout } from './upstreamMerge.js';

/** What this module reads of a node's state. */
export interface UpstreamNode {
  target: { name: string; network: string };
  upstream?: UpstreamAnswer;
  upstreamDropped?: number;
  upstreamTruncations?: number;
}

/** Where the merged families go: text pieces, and ranges of lines already encoded. */
export interface UpstreamSink {
  write(piece: string): void;
  writeRange(bytes: Buffer, start: number, end: number): void;
}

export class FleetUpstream {
  /** Samples per node left out by conflicts at the last scrape. */
  private conflicted = new Map<string, number>();
  /** The last scrape's merge, reused while every node sends the same families. */
  private layout: MergeLayout | undefined;
  /** Per shape, its plan with this view's prefix and secrets (at scrubVersion `version`). */
  private readonly plans = new WeakMap<UpstreamShape, { plan: UpstreamPlan; version: number | undefined }>();

  constructor(
    private readonly nodes: () => Iterable<UpstreamNode>,
    /**
     * The daemon has one upstream view: an answer's lines are made once, with the options of the view that prepares it.
     */
    private readonly opts: PrepareOptions = {},
  ) {}

  /**
   * Prepares a node's lines as soon as its answer is applied (off the scrape path), keeps them
   * with the answer and releases the parsed families. The lines carry the node's name and
   * network: should either change under the same answer (FleetState makes a new network a new
   * node, with no answer yet), the node has no lines until its next answer, never stale labels.
   */
  prepare(n: UpstreamNode): PreparedUpstream | undefined {
    const answer = n.upstream;
    if (!answer) return undefined;
    const { name, network } = n.target;
    const p = answer.prepared;
    if (p && p.node === name && p.network === network) return p;
    const { shape, values } = answer;
    answer.prepared =
      shape && values
        ? preparedFromPlan(this.planFor(shape, answer), name, network, values)
        : prepareUpstream(name, network, answer.families ?? [], this.opts);
    answer.families = undefined;
    answer.samples = undefined;
    answer.shape = undefined;
    answer.values = undefined;
    return answer.prepared;
  }

  /** The shape's plan, made from the answer's families (or the shape's text, after an answer read by shape alone). */
  private planFor(shape: UpstreamShape, answer: UpstreamAnswer): UpstreamPlan {
    const { scrub, scrubVersion } = this.opts;
    const version = scrubVersion?.();
    const known = this.plans.get(shape);
    if (known && (!scrub || (version !== undefined && known.version === version))) return known.plan;
    let { families, samples } = answer;
    if (!families || !samples) {
      // Read whole before under the same budget: this text parses to the same families and values.
      ({ families, samples } = parseDetailed(shapeText(shape, answer.values!), { budget: shape.budget }));
    }
    const plan = planUpstream(families, samples, { prefix: this.opts.prefix ?? DEFAULT_UPSTREAM_PREFIX, scrub });
    this.plans.set(shape, { plan, version });
    return plan;
  }

  /** Prepared sources in node order (any not prepared yet is prepared now). */
  *sources(): Iterable<PreparedUpstream> {
    for (const n of this.nodes()) {
      const p = this.prepare(n);
      if (p) yield p;
    }
  }

  /** Writes the merged families and remembers what conflicts left out. */
  write(sources: Iterable<PreparedUpstream>, openMetrics: boolean, out: UpstreamSink): void {
    const it = this.steps(sources, openMetrics, out);
    while (it.next().done !== true) continue;
  }

  /** write() one family at a time (see mergedSteps); the merge and its conflicts are settled at the first step. */
  *steps(
    sources: Iterable<PreparedUpstream>,
    openMetrics: boolean,
    out: UpstreamSink,
  ): Generator<void, void, undefined> {
    const list = [...sources];
    const layout = mergeLayout(list, this.layout);
    if (layout !== this.layout) {
      this.layout = layout;
      const byNode = new Map<string, number>();
      for (const c of layout.conflicts) byNode.set(c.node, (byNode.get(c.node) ?? 0) + c.samples);
      this.conflicted = byNode;
    }
    yield* mergedSteps(layout, list, {
      openMetrics,
      write: (p) => out.write(p),
      writeRange: (b, start, end) => out.writeRange(b, start, end),
    });
  }

  /** ledger_exporter_upstream_* families (a RegistryExtension of the metrics view), one series per node. */
  collectors(registry: Registry): void {
    registerTextFamily(registry, {
      name: 'ledger_exporter_upstream_truncated_total',
      help: "Answers of the node's /metrics cut at its per-node budget (series, bytes or families).",
      type: 'counter',
      labelNames: ['node'],
      // From 0 for every node, so increase() sees the first truncation. One labels array for
      // every sample (emit reads it at once): one per node was most of a scrape's garbage here.
      collect: (emit) => {
        const labels: Array<[string, string]> = [['node', '']];
        for (const n of this.nodes()) {
          labels[0]![1] = n.target.name;
          emit(labels, n.upstreamTruncations ?? 0);
        }
      },
    });
    registerTextFamily(registry, {
      name: 'ledger_exporter_upstream_dropped_samples',
      help:
        "Samples of the node's last /metrics answer left out, by reason: budget (per-node cap), secret (a label " +
        "value held one of our secrets), conflict (family clashes with another node's; as of the last scrape).",
      type: 'gauge',
      labelNames: ['node', 'reason'],
      collect: (emit) => {
        const labels: Array<[string, string]> = [
          ['node', ''],
          ['reason', ''],
        ];
        const put = (node: string, reason: string, v: number) => {
          if (!(v > 0)) return;
          labels[0]![1] = node;
          labels[1]![1] = reason;
          emit(labels, v);
        };
        for (const n of this.nodes()) {
          const node = n.target.name;
          put(node, 'budget', n.upstreamDropped ?? 0);
          // Prepares a node whose answer was applied without the view's hook (tests).
          put(node, 'secret', this.prepare(n)?.droppedSecretSamples ?? 0);
          put(node, 'conflict', this.conflicted.get(node) ?? 0);
        }
      },
    });
  }
}
