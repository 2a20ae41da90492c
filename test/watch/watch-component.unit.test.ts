// The watch component builds a snapshot's watch only when something reads it (the fan-out's own
// snapshots, one per round, never do), once per snapshot, and from the one WatchViews: consumers
// of an unchanged state (alerts, a scrape, the status page, /api/v1/watch) share one build.
import { describe, expect, it } from 'vitest';
import type { AssemblyContext } from '../../src/daemon/component.js';
import type { ExporterConfig } from '../../src/config/exporterConfig.js';
import type { FleetSnapshot } from '../../src/domain.js';
import { EntityReads } from '../../src/state/entityReads.js';
import { watchComponent } from '../../src/watch/component.js';
import { entriesOf, type WatchSnapshot } from '../../src/watch/types.js';
import { WatchViews } from '../../src/watch/views.js';

class CountingViews extends WatchViews {
  calls = 0;
  readonly built = new Set<WatchSnapshot>();
  override build(config: ExporterConfig, fleet: FleetSnapshot): WatchSnapshot | undefined {
    this.calls++;
    const out = super.build(config, fleet);
    if (out) this.built.add(out);
    return out;
  }
}

const addr = (i: number) => i.toString(16).padStart(64, '0');
const config = {
  networks: { main: { decimals: 9 } },
  watch: { intervalMs: 30_000, entries: [{ kind: 'account', name: 'a1', address: addr(4), network: 'main' }] },
} as unknown as ExporterConfig;

function rig(cfg: ExporterConfig = config) {
  const reads = new EntityReads();
  reads.sync('watchBalance', [{ key: 'a1', network: 'main', label: 'a1', id: addr(4), params: [] }]);
  reads.succeeded('watchBalance', 'a1', 7n * 10n ** 9n, 'n1', 1_000);
  const views = new CountingViews();
  const component = watchComponent(views);
  void component.open?.({ config: () => cfg } as unknown as AssemblyContext);
  const snapshot = (): FleetSnapshot => {
    const snap = {
      nodes: [],
      networks: [{ network: 'main', decimals: 9, nodes: 1, nodesUp: 1, versions: 1, heightMax: 500 }],
      fanOut: reads.view(),
    } as unknown as FleetSnapshot;
    component.addToSnapshot?.(snap);
    return snap;
  };
  return { reads, views, snapshot };
}

describe('the watch component', () => {
  it('builds nothing for snapshots whose watch nobody reads', () => {
    const { views, snapshot } = rig();
    const taken = Array.from({ length: 6 }, snapshot);
    expect(taken.map((s) => s.nodes)).toHaveLength(6);
    expect(views.calls).toBe(0);
  });

  it('builds once per snapshot read, and once per state for all the snapshots that read it', () => {
    const { reads, views, snapshot } = rig();
    const snap = snapshot();
    const first = snap.watch;
    expect(snap.watch).toBe(first);
    expect(views.calls).toBe(1);
    expect(entriesOf(first, 'account')[0]!.balanceTokens).toBe(7);
    // The alerts, a scrape, the status page and /api/v1/watch, each with its own snapshot.
    const seen = Array.from({ length: 4 }, () => snapshot().watch);
    expect(new Set([first, ...seen]).size).toBe(1);
    expect(views.built.size).toBe(1);
    reads.succeeded('watchBalance', 'a1', 2n * 10n ** 9n, 'n1', 2_000);
    expect(entriesOf(snapshot().watch, 'account')[0]!.balanceTokens).toBe(2);
    expect(views.built.size).toBe(2);
  });

  it('reads as a plain field: enumerated, copied, replaceable; absent without a watch section', () => {
    const { snapshot } = rig();
    const snap = snapshot();
    expect({ ...snap }.watch).toEqual(snap.watch);
    expect(Object.keys(snap)).toContain('watch');
    snap.watch = undefined;
    expect(snap.watch).toBeUndefined();
    const none = rig({ networks: {} } as unknown as ExporterConfig).snapshot();
    expect('watch' in none).toBe(false);
  });
});
