// Snapshots come often and most watched entries' reads stay the same between them: an entry's
// view is rebuilt only when one of its reads (or the height or epoch it uses) changed, and the
// rebuilt views say what views built from scratch say.
import { describe, expect, it } from 'vitest';
import type { FanOutEntity, FleetSnapshot } from '../../src/domain.js';
import type { ExporterConfig } from '../../src/config/exporterConfig.js';
import { EntityReads } from '../../src/state/entityReads.js';
import { buildWatchSnapshot, WatchViews } from '../../src/watch/views.js';
import { entriesOf, type WatchEntry } from '../../src/watch/types.js';

const addr = (i: number) => i.toString(16).padStart(64, '0');
const entries: WatchEntry[] = [
  { kind: 'validator', name: 'v1', address: addr(3), network: 'main' },
  { kind: 'validator', name: 'v2', address: addr(30), network: 'main' },
  { kind: 'account', name: 'a1', address: addr(4), network: 'main' },
];
const config = {
  networks: { main: { decimals: 9 } },
  watch: { intervalMs: 30_000, entries },
} as unknown as ExporterConfig;
const entity = (key: string, id: string): FanOutEntity => ({ key, network: 'main', label: key, id, params: [] });
const set = Array.from({ length: 25 }, (_, i) => ({ address: addr(i + 1), stake: 1n, weight: 1000 - i * 10 }));

function readsWithAll(): EntityReads {
  const reads = new EntityReads();
  reads.sync('watchValidatorDetail', [entity('v1', addr(3)), entity('v2', addr(30))]);
  reads.sync('watchValidatorSet', [entity('main', 'set')]);
  reads.sync('watchBalance', [entity('a1', addr(4))]);
  reads.succeeded('watchValidatorDetail', 'v1', { registered: true, stake: 1n, weight: 980 }, 'n1', 1_000);
  reads.succeeded('watchValidatorDetail', 'v2', { registered: true, stake: 1n, weight: 5 }, 'n1', 1_000);
  reads.succeeded('watchValidatorSet', 'main', set, 'n1', 1_000);
  reads.succeeded('watchBalance', 'a1', 7n * 10n ** 9n, 'n1', 1_000);
  return reads;
}

const fleet = (reads: EntityReads, heightMax = 500): FleetSnapshot => ({
  nodes: [],
  networks: [{ network: 'main', decimals: 9, nodes: 1, nodesUp: 1, versions: 1, heightMax }],
  fanOut: reads.view(),
});

describe('watch views kept between snapshots', () => {
  it('keeps every view while no read changed, and they equal views built from scratch', () => {
    const reads = readsWithAll();
    const views = new WatchViews();
    const first = views.build(config, fleet(reads))!;
    const second = views.build(config, fleet(reads))!;
    expect(entriesOf(second, 'validator')[0]).toBe(entriesOf(first, 'validator')[0]);
    expect(entriesOf(second, 'account')[0]).toBe(entriesOf(first, 'account')[0]);
    expect(second).toEqual(buildWatchSnapshot(config, fleet(reads)));
    expect(entriesOf(first, 'validator').map((v) => [v.rank, v.active, v.seatMarginRatio])).toEqual([
      [3, true, (980 - 760) / 980],
      [undefined, false, (5 - 760) / 5],
    ]);
  });

  it("rebuilds only the entry whose read changed, and an account when the network's height moved", () => {
    const reads = readsWithAll();
    const views = new WatchViews();
    const before = views.build(config, fleet(reads))!;
    reads.succeeded('watchBalance', 'a1', 2n * 10n ** 9n, 'n2', 2_000);
    const after = views.build(config, fleet(reads))!;
    expect(entriesOf(after, 'validator')[0]).toBe(entriesOf(before, 'validator')[0]);
    expect(entriesOf(after, 'validator')[1]).toBe(entriesOf(before, 'validator')[1]);
    expect(entriesOf(after, 'account')[0]).not.toBe(entriesOf(before, 'account')[0]);
    expect(entriesOf(after, 'account')[0]!.balanceTokens).toBe(2);
    expect(entriesOf(after, 'account')[0]!.servedBy).toBe('n2');
    const higher = views.build(config, fleet(reads, 501))!;
    expect(entriesOf(higher, 'validator')[0]).toBe(entriesOf(before, 'validator')[0]);
    expect(entriesOf(higher, 'account')[0]).not.toBe(entriesOf(after, 'account')[0]);
  });

  it('re-ranks every validator when the set changes', () => {
    const reads = readsWithAll();
    const views = new WatchViews();
    views.build(config, fleet(reads));
    const heavier = set.map((s) => (s.address === addr(3) ? { ...s, weight: 2000 } : s));
    reads.succeeded('watchValidatorSet', 'main', heavier, 'n1', 2_000);
    const after = views.build(config, fleet(reads))!;
    expect(entriesOf(after, 'validator')[0]!.rank).toBe(1);
    expect(after).toEqual(buildWatchSnapshot(config, fleet(reads)));
  });

  it('a failed read shows in the next snapshot, and the one before stays as it was', () => {
    const reads = readsWithAll();
    const views = new WatchViews();
    const before = views.build(config, fleet(reads))!;
    reads.failed('watchBalance', 'a1', 'timeout');
    const after = views.build(config, fleet(reads))!;
    expect(entriesOf(after, 'account')[0]!.balanceTokens).toBeUndefined();
    expect(entriesOf(after, 'account')[0]!.consecutiveFailures).toBe(1);
    expect(entriesOf(before, 'account')[0]!.balanceTokens).toBe(7);
    expect(entriesOf(before, 'account')[0]!.consecutiveFailures).toBe(0);
  });
});
