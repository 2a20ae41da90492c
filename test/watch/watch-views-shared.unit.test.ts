// One WatchViews serves every consumer of the daemon's snapshots (alert evaluations, scrapes, the
// status page, /api/v1/watch, each fan-out round): while nothing the watch is built from changed,
// each asks for a snapshot built from new FleetSnapshot objects and gets the one already built.
// Builds are counted as the distinct snapshot and view objects handed out.
import { describe, expect, it } from 'vitest';
import type { ExporterConfig } from '../../src/config/exporterConfig.js';
import type { FanOutEntity, FleetSnapshot } from '../../src/domain.js';
import { EntityReads } from '../../src/state/entityReads.js';
import { buildWatchSnapshot, WatchViews } from '../../src/watch/views.js';
import { entriesOf, type WatchEntry, type WatchSnapshot } from '../../src/watch/types.js';

const addr = (i: number) => i.toString(16).padStart(64, '0');
const entries: WatchEntry[] = [
  { kind: 'validator', name: 'v1', address: addr(3), network: 'main' },
  { kind: 'miner', name: 'm1', address: addr(5), network: 'main' },
  { kind: 'account', name: 'a1', address: addr(4), network: 'main' },
];
const configOf = (): ExporterConfig =>
  ({ networks: { main: { decimals: 9 } }, watch: { intervalMs: 30_000, entries } }) as unknown as ExporterConfig;
const entity = (key: string, id: string): FanOutEntity => ({ key, network: 'main', label: key, id, params: [] });
const set = Array.from({ length: 3 }, (_, i) => ({ address: addr(i + 1), stake: 1n, weight: 1000 - i * 10 }));

function readsWithAll(): EntityReads {
  const reads = new EntityReads();
  reads.sync('watchValidatorDetail', [entity('v1', addr(3))]);
  reads.sync('watchValidatorSet', [entity('main', 'set')]);
  reads.sync('watchBalance', [entity('a1', addr(4))]);
  reads.succeeded('watchValidatorDetail', 'v1', { registered: true, stake: 1n, weight: 980 }, 'n1', 1_000);
  reads.succeeded('watchValidatorSet', 'main', set, 'n1', 1_000);
  reads.succeeded('watchBalance', 'a1', 7n * 10n ** 9n, 'n1', 1_000);
  return reads;
}

/** A new FleetSnapshot, as the daemon makes for each consumer: new objects, the same values. */
const fleet = (reads: EntityReads, heightMax = 500, epoch = 5): FleetSnapshot =>
  ({
    nodes: [{ name: 'n1', network: 'main', health: { epoch } }],
    networks: [{ network: 'main', decimals: 9, nodes: 1, nodesUp: 1, versions: 1, heightMax, sourceNode: 'n1' }],
    fanOut: reads.view(),
  }) as unknown as FleetSnapshot;

const distinct = (list: unknown[]) => new Set(list).size;

describe('one watch snapshot per change, shared by every consumer', () => {
  it('hands every consumer of an unchanged state the one snapshot already built', () => {
    const reads = readsWithAll();
    const config = configOf();
    const views = new WatchViews();
    // Alerts, a scrape, the status page, /api/v1/watch and six fan-out rounds.
    const got = Array.from({ length: 10 }, () => views.build(config, fleet(reads))!);
    expect(distinct(got)).toBe(1);
    expect(got[0]).toEqual(buildWatchSnapshot(config, fleet(reads)));
  });

  it('builds once more when a read lands, and only the view of the entry it is for', () => {
    const reads = readsWithAll();
    const config = configOf();
    const views = new WatchViews();
    const before = views.build(config, fleet(reads))!;
    reads.succeeded('watchBalance', 'a1', 2n * 10n ** 9n, 'n1', 2_000);
    const after = Array.from({ length: 5 }, () => views.build(config, fleet(reads))!);
    expect(distinct([before, ...after])).toBe(2);
    const views2 = (s: WatchSnapshot) => s.entries;
    expect(distinct([...views2(before), ...views2(after[0]!)])).toBe(4);
    expect(entriesOf(after[0], 'account')[0]!.balanceTokens).toBe(2);
    expect(entriesOf(after[0], 'validator')[0]).toBe(entriesOf(before, 'validator')[0]);
  });

  it('builds again when the height, the epoch or the config changed, and not otherwise', () => {
    const reads = readsWithAll();
    const config = configOf();
    const views = new WatchViews();
    const base = views.build(config, fleet(reads))!;
    const higher = views.build(config, fleet(reads, 501))!;
    expect(higher).not.toBe(base);
    expect(entriesOf(higher, 'validator')[0]).toBe(entriesOf(base, 'validator')[0]);
    expect(entriesOf(higher, 'account')[0]).not.toBe(entriesOf(base, 'account')[0]);
    const nextEpoch = views.build(config, fleet(reads, 501, 6))!;
    expect(nextEpoch).not.toBe(higher);
    expect(entriesOf(nextEpoch, 'miner')[0]).not.toBe(entriesOf(higher, 'miner')[0]);
    expect(entriesOf(nextEpoch, 'account')[0]).toBe(entriesOf(higher, 'account')[0]);
    expect(views.build(config, fleet(reads, 501, 6))).toBe(nextEpoch);
    // A reload: a new config, so a new snapshot, even with the same entries.
    const reloaded = views.build(configOf(), fleet(reads, 501, 6))!;
    expect(reloaded).not.toBe(nextEpoch);
    expect(reloaded).toEqual(nextEpoch);
  });

  it('builds nothing without a watch section', () => {
    const views = new WatchViews();
    const config = { networks: {} } as unknown as ExporterConfig;
    expect(views.build(config, fleet(readsWithAll()))).toBeUndefined();
  });
});
