// The upstream families of every node, as the scrape path needs them: prepared and encoded when
// the node's /metrics result arrives (prepare), so a scrape only merges ready bytes; what was
// left out (per-node budget, secrets, cross-node conflicts) is counted per node for the
// exporter's metrics.
import type { Registry } from 'prom-client';
import type { MetricFamily } from '../domain.js';
import { registerTextFamily } from '../metrics/textFamily.js';
import { encodeUpstream, prepareUpstream, renderUpstreamWithStats, type PrepareOptions, type PreparedUpstream } from './upstream.js';

/** What this module reads of a node's state. */
export interface UpstreamNode {
  target: { name: string; network: string };
  upstream?: MetricFamily[];
  upstreamDropped?: number;
  upstreamTruncations?: number;
}

/** Where the merged families go: text pieces, and lines already encoded. */
export interface UpstreamSink {
  write(piece: string): void;
  writeBytes(bytes: Buffer): void;
}

export class FleetUpstream {
  /** Keyed by the answer itself (a new array per answer) and the network: a node replaced by a reload never reuses lines. */
  private readonly cache = new Map<string, { source: MetricFamily[]; network: string; prepared: PreparedUpstream }>();
  /** Samples per node left out by conflicts at the last scrape. */
  private conflicted = new Map<string, number>();

  constructor(
    private readonly nodes: () => Iterable<UpstreamNode>,
    private readonly opts: PrepareOptions = {},
  ) {}

  /** Prepares a node's families as soon as its answer is applied (off the scrape path). */
  prepare(n: UpstreamNode): void {
    if (!n.upstream) {
      this.cache.delete(n.target.name);
      return;
    }
    const c = this.cache.get(n.target.name);
    if (c && c.source === n.upstream && c.network === n.target.network) return;
    const prepared = encodeUpstream(prepareUpstream(n.target.name, n.target.network, n.upstream, this.opts));
    this.cache.set(n.target.name, { source: n.upstream, network: n.target.network, prepared });
  }

  /** Prepared sources in node order (any not prepared yet is prepared now); forgets nodes whose upstream is gone. */
  *sources(): Iterable<PreparedUpstream> {
    let live = 0;
    for (const n of this.nodes()) {
      if (!n.upstream) continue;
      live++;
      this.prepare(n);
      yield this.cache.get(n.target.name)!.prepared;
    }
    if (live < this.cache.size) this.forgetGone();
  }

  private forgetGone(): void {
    const live = new Set<string>();
    for (const n of this.nodes()) if (n.upstream) live.add(n.target.name);
    for (const name of this.cache.keys()) if (!live.has(name)) this.cache.delete(name);
  }

  /** Writes the merged families and remembers what conflicts left out. */
  write(sources: Iterable<PreparedUpstream>, openMetrics: boolean, out: UpstreamSink): void {
    const { conflicts } = renderUpstreamWithStats(sources, { openMetrics, write: (p) => out.write(p), writeBytes: (b) => out.writeBytes(b) });
    const byNode = new Map<string, number>();
    for (const c of conflicts) byNode.set(c.node, (byNode.get(c.node) ?? 0) + c.samples);
    this.conflicted = byNode;
  }

  /** ledger_exporter_upstream_* families (a RegistryExtension of the metrics view), one series per node. */
  collectors(registry: Registry): void {
    registerTextFamily(registry, {
      name: 'ledger_exporter_upstream_truncated_total',
      help: "Answers of the node's /metrics cut at its per-node budget (series, bytes or families).",
      type: 'counter',
      // From 0 for every node, so increase() sees the first truncation.
      collect: (emit) => {
        for (const n of this.nodes()) emit([['node', n.target.name]], n.upstreamTruncations ?? 0);
      },
    });
    registerTextFamily(registry, {
      name: 'ledger_exporter_upstream_dropped_samples',
      help: "Samples of the node's last /metrics answer left out, by reason: budget (per-node cap), secret (a label value held one of our secrets), conflict (family clashes with another node's; as of the last scrape).",
      type: 'gauge',
      collect: (emit) => {
        for (const n of this.nodes()) {
          const node = n.target.name;
          this.prepare(n); // a node whose answer was applied without prepare (tests, the render bench)
          const counts: Array<[string, number]> = [
            ['budget', n.upstreamDropped ?? 0],
            ['secret', this.cache.get(node)?.prepared.droppedSecretSamples ?? 0],
            ['conflict', this.conflicted.get(node) ?? 0],
          ];
          for (const [reason, v] of counts) {
            if (v > 0) emit([['node', node], ['reason', reason]], v);
          }
        }
      },
    });
  }
}
