// GET /metrics: the node's own families, read within the per-node budget and re-exposed as
// ledger_upstream_* by exposition/ (names and labels are the node's).
import type { MetricFamily } from '../domain.js';
import { UpstreamReader, type UpstreamRead } from '../exposition/index.js';
import { ProbeError } from './errors.js';
import type { NodeProbe, ParseContext } from './types.js';

export type MetricsProbeData = {
  probe: 'metrics';
  value: MetricFamily[] | UpstreamRead;
  /** Samples the per-node budget left out. */
  droppedSamples?: number;
};

/**
 * Each node's /metrics reader, by its prober's parse context (one per prober, for its life): it
 * keeps the shape of the node's last answer, so an answer that differs only in values is not
 * parsed again.
 */
const readers = new WeakMap<ParseContext, UpstreamReader>();

export const metricsProbe: NodeProbe<MetricsProbeData> = {
  target: 'node',
  // The classic text format: the Rust crate's dialect, and what the parser reads.
  request: { kind: 'get', path: '/metrics', accept: 'text/plain;version=0.0.4;q=1,*/*;q=0.1' },
  // exposition/fleetUpstream.ts drops (and counts) every sample holding a secret, scrubs HELP text.
  scrubbedWhenRendered: true,
  parse(text, ctx) {
    let reader = readers.get(ctx);
    if (!reader) readers.set(ctx, (reader = new UpstreamReader(ctx.budget.upstream)));
    try {
      const read = reader.read(text as string);
      return { probe: 'metrics', value: read, droppedSamples: read.droppedSamples };
    } catch (err) {
      throw new ProbeError('invalid_response', `GET /metrics: ${(err as Error).message}`.slice(0, 300));
    }
  },
  apply(node, d) {
    const { value } = d;
    node.upstream = Array.isArray(value)
      ? { families: value, prepared: undefined }
      : {
          families: value.families,
          samples: value.samples,
          shape: value.shape,
          values: value.values,
          prepared: undefined,
        };
    node.upstreamVersion++;
    node.upstreamDropped = d.droppedSamples ?? 0;
    if (node.upstreamDropped > 0) node.upstreamTruncations = (node.upstreamTruncations ?? 0) + 1;
    return false;
  },
  clear(node) {
    node.upstream = undefined;
    node.upstreamVersion++;
  },
  metrics: [],
};
