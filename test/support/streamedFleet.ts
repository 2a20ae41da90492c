// A fleet fed to a /metrics view as the daemon feeds it (health and upstream /metrics answers),
// and a reader of the view's streamed bodies: for the tests of the streamed scrape path.
import { gunzipSync } from 'node:zlib';
import type { MetricFamily, ProbeResult } from '../../src/domain.js';
import { FleetUpstream } from '../../src/exposition/index.js';
import type { BodyOut } from '../../src/metrics/bodyStream.js';
import { MetricsView, type ExporterCounters, type RenderedMetrics } from '../../src/metrics/view.js';
import { FleetState } from '../../src/state/fleetState.js';
import { buildSnapshot } from '../../src/state/snapshot.js';
import { target } from './targets.js';

const counters: ExporterCounters = { configReloads: { success: 0, failure: 0 }, pollOverruns: new Map() };
export const T0 = 1_700_000_000_000;

/** A small deterministic generator (tests must not depend on Math.random). */
export function rng(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s % n;
  };
}

export interface Fleet {
  state: FleetState;
  upstream: FleetUpstream;
  /** A view wired as the daemon wires it; `chunkBytes` sizes its streamed chunks. */
  view(chunkBytes?: number): MetricsView;
  /** Nodes picked by `pick` answer at round `round` (health and their /metrics with `series` samples). */
  answer(views: MetricsView[], round: number, pick: (n: number) => number, series?: number): void;
}

export function fleet(count: number, networks = ['mainnet', 'testnet']): Fleet {
  const state = new FleetState(
    Array.from({ length: count }, (_, i) =>
      target(`node-${i}`, { network: networks[i % networks.length]!, probes: ['health', 'metrics'] }),
    ),
  );
  const upstream = new FleetUpstream(() => state.nodes());
  const view = (chunkBytes?: number) =>
    new MetricsView(
      { version: '9.9.9', infoLabelKeys: [], defaultMetrics: false, chunkBytes },
      () => ({ snapshot: buildSnapshot(state.nodes(), {}, T0), upstream: upstream.sources(), counters }),
      (sources, om, out) => upstream.steps(sources, om, out),
      (node) => upstream.prepare(node),
    );
  const answer = (views: MetricsView[], round: number, pick: (n: number) => number, series = 3) => {
    for (const node of state.nodes()) {
      if (round > 0 && pick(3) === 0) continue;
      const name = node.target.name;
      const health: ProbeResult = {
        kind: 'ok',
        probe: 'health',
        startedAt: T0,
        durationMs: 1 + pick(9),
        data: { probe: 'health', value: { status: pick(4) ? 'ok' : 'degraded', height: 100 + round + pick(3) } },
      };
      const families: MetricFamily[] = [
        {
          name: 'height',
          help: 'Height',
          type: 'gauge',
          samples: Array.from({ length: series }, (_, k) => ({
            name: 'height',
            labels: { shard: String(k) },
            value: round * 10 + pick(5),
          })),
        },
      ];
      if (pick(4) === 0)
        families.push({ name: 'peers', type: 'gauge', samples: [{ name: 'peers', labels: {}, value: pick(20) }] });
      const metrics: ProbeResult = {
        kind: 'ok',
        probe: 'metrics',
        startedAt: T0,
        durationMs: 2,
        data: { probe: 'metrics', value: families },
      };
      state.apply(name, health);
      state.apply(name, metrics);
      for (const v of views) v.noteResult(node);
    }
    for (const v of views) v.buildChanged(T0);
  };
  return { state, upstream, view, answer };
}

/**
 * Reads a streamed body to its end (copying each run of bytes before giving it back, as a socket
 * does); `hold` delays giving back (a slow socket).
 */
export function readStream(r: RenderedMetrics, hold: () => Promise<void> = () => Promise.resolve()): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    const out: BodyOut = {
      write: (bytes, done) => {
        parts.push(Buffer.from(bytes));
        void hold().then(done);
      },
      end: () => resolve(Buffer.concat(parts)),
      destroy: (err) => reject(err),
    };
    r.stream!.pipe(out);
  });
}

/** The exposition a scrape answers (gunzipped), streamed or whole. */
export async function scrapeText(
  view: MetricsView,
  format: 'text' | 'openmetrics',
  gzip: boolean,
  hold?: () => Promise<void>,
): Promise<{ text: string; streamed: boolean }> {
  const r = await view.render(format, { gzip, stream: true });
  const bytes = r.stream ? await readStream(r, hold) : gzip ? await r.gzipped! : r.body;
  return { text: (gzip ? gunzipSync(bytes) : bytes).toString('utf8'), streamed: r.stream !== undefined };
}
