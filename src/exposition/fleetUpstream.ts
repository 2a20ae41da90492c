// The upstream families of every node, as the scrape path needs them: prepared once per poll
// result (cached by the node's upstream version), merged per scrape, and what was left out
// (per-node budget, secrets, cross-node conflicts) counted per node for the exporter's metrics.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { MetricFamily } from '../domain.js';
import { prepareUpstream, renderUpstreamWithStats, type PrepareOptions, type PreparedUpstream } from './upstream.js';

/** What this module reads of a node's state. */
export interface UpstreamNode {
  target: { name: string; network: string };
  upstream?: MetricFamily[];
  upstreamVersion: number;
  upstreamDropped?: number;
  upstreamTruncations?: number;
}

export class FleetUpstream {
  private readonly cache = new Map<string, { version: number; prepared: PreparedUpstream }>();
  /** Samples per node left out by conflicts at the last scrape. */
  private conflicted = new Map<string, number>();

  constructor(
    private readonly nodes: () => Iterable<UpstreamNode>,
    private readonly opts: PrepareOptions = {},
  ) {}

  /** Prepared sources in node order; forgets nodes whose upstream is gone. */
  *sources(): Iterable<PreparedUpstream> {
    const live = new Set<string>();
    for (const n of this.nodes()) {
      if (!n.upstream) continue;
      live.add(n.target.name);
      let c = this.cache.get(n.target.name);
      if (!c || c.version !== n.upstreamVersion) {
        c = { version: n.upstreamVersion, prepared: prepareUpstream(n.target.name, n.target.network, n.upstream, this.opts) };
        this.cache.set(n.target.name, c);
      }
      yield c.prepared;
    }
    for (const name of this.cache.keys()) if (!live.has(name)) this.cache.delete(name);
  }

  /** Writes the merged families and remembers what conflicts left out. */
  write(sources: Iterable<PreparedUpstream>, openMetrics: boolean, write: (piece: string) => void): void {
    const { conflicts } = renderUpstreamWithStats(sources, { openMetrics, write });
    const byNode = new Map<string, number>();
    for (const c of conflicts) byNode.set(c.node, (byNode.get(c.node) ?? 0) + c.samples);
    this.conflicted = byNode;
  }

  /** ledger_exporter_upstream_* collectors (a RegistryExtension of the metrics view). */
  collectors(registry: Registry): void {
    const registers = [registry];
    const nodes = this.nodes;
    const cache = this.cache;
    const conflicted = () => this.conflicted;
    new Counter({
      name: 'ledger_exporter_upstream_truncated_total',
      help: "Answers of the node's /metrics cut at its per-node budget (series, bytes or families).",
      labelNames: ['node'],
      registers,
      collect() {
        this.reset();
        // From 0 for every node, so increase() sees the first truncation.
        for (const n of nodes()) this.inc({ node: n.target.name }, n.upstreamTruncations ?? 0);
      },
    });
    new Gauge({
      name: 'ledger_exporter_upstream_dropped_samples',
      help: "Samples of the node's last /metrics answer left out, by reason: budget (per-node cap), secret (a label value held one of our secrets), conflict (family clashes with another node's; as of the last scrape).",
      labelNames: ['node', 'reason'],
      registers,
      collect() {
        this.reset();
        for (const n of nodes()) {
          const node = n.target.name;
          const counts = { budget: n.upstreamDropped ?? 0, secret: cache.get(node)?.prepared.droppedSecretSamples ?? 0, conflict: conflicted().get(node) ?? 0 };
          for (const [reason, v] of Object.entries(counts)) if (v > 0) this.set({ node, reason }, v);
        }
      },
    });
  }
}
