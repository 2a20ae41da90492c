// Re-exposition of each node's own /metrics families as `ledger_upstream_<family>`, with the
// exporter's `node` and `network` labels added. All string work happens when a node's answer
// arrives (a plan per answer shape, plan.ts, then one string per node); the scrape
// (upstreamMerge.ts) only copies prepared bytes.
import type { MetricFamily, Sample } from './types.js';
import type { FamilyHeaders } from './familyHeaders.js';
import { planUpstream, renderPlan, type UpstreamPlan } from './plan.js';
import type { UpstreamShape } from './shape.js';

export const DEFAULT_UPSTREAM_PREFIX = 'ledger_upstream_';

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
 * A node's last /metrics answer, as the node keeps it: what the reader made of it (families, or a
 * shape and values), read once, when the upstream view prepares the node's lines
 * (FleetUpstream.prepare), and then released: parsed families hold several times the memory of
 * the lines and would otherwise live until the next poll.
 */
export interface UpstreamAnswer {
  families: MetricFamily[] | undefined;
  samples?: Sample[];
  shape?: UpstreamShape;
  values?: number[];
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
  /**
   * Changes whenever `scrub` may answer otherwise (a secret was added). Without it, a plan made
   * with `scrub` serves one answer only (secrets may have changed since).
   */
  scrubVersion?: () => number;
}

/** Builds a node's output lines from parsed families (see planUpstream). */
export function prepareUpstream(
  node: string,
  network: string,
  families: MetricFamily[],
  opts: PrepareOptions = {},
): PreparedUpstream {
  const plan = planUpstream(families, undefined, { prefix: opts.prefix ?? DEFAULT_UPSTREAM_PREFIX, scrub: opts.scrub });
  const values = families.flatMap((f) => f.samples.map((s) => s.value));
  return preparedFromPlan(plan, node, network, values);
}

export function preparedFromPlan(
  plan: UpstreamPlan,
  node: string,
  network: string,
  values: ArrayLike<number>,
): PreparedUpstream {
  const { bytes, ends } = renderPlan(plan, node, network, values);
  return { node, network, bytes, families: plan.families, ends, droppedSecretSamples: plan.droppedSecretSamples };
}
