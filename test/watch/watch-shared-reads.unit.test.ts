// A network read two kinds declare (the active set and the newest block rewards, for validators
// and delegators) is registered once and read once per network, for the networks of either kind.
import { describe, expect, it } from 'vitest';
import { fanOutProbes } from '../../src/probes/registry.js';
import type { FanOutConfig } from '../../src/probes/types.js';
import { isWatchKindRead, watchKind } from '../../src/watch/kinds/registry.js';
import type { WatchEntry } from '../../src/watch/types.js';
import type { FleetSnapshot } from '../../src/domain.js';

const entry = (kind: string, name: string, network: string): WatchEntry => ({
  kind,
  name,
  network,
  address: name.padEnd(64, '0').replace(/[^0-9a-f]/g, 'a'),
});
const config = (entries: WatchEntry[]): FanOutConfig => ({
  nodes: [],
  polling: { maxValidators: 100 },
  networks: {},
  watch: { intervalMs: 1_000, entries },
});
const empty = { nodes: [], networks: [] } as unknown as FleetSnapshot;

describe('network reads shared by kinds', () => {
  it('delegators declare the validators own set and rewards reads: one probe each, registered once', () => {
    for (const name of ['watchValidatorSet', 'watchBlockRewards']) {
      expect(watchKind('delegator').networkReads?.[name]).toBe(watchKind('validator').networkReads?.[name]);
      expect(fanOutProbes().filter(([n]) => n === name)).toHaveLength(1);
      expect(isWatchKindRead(name)).toBe(true);
    }
  });

  it('reads each network once, whether it has validators, delegators or both', () => {
    const set = fanOutProbes().find(([n]) => n === 'watchValidatorSet')![1];
    const c = config([
      entry('validator', 'v1', 'a'),
      entry('delegator', 'd1', 'a'),
      entry('delegator', 'd2', 'b'),
      entry('validator', 'v2', 'c'),
      entry('account', 'x1', 'd'),
    ]);
    const entities = set.entities(c, empty);
    expect(entities.map((e) => e.key)).toEqual(['a', 'b', 'c']);
    // The same entity objects while nothing changed (requests are built once per entity).
    expect(set.entities(c, empty)).toBe(entities);
    expect(set.entities(config([entry('delegator', 'd2', 'b')]), empty).map((e) => e.key)).toEqual(['b']);
    expect(set.entities(config([entry('miner', 'm', 'b')]), empty)).toEqual([]);
  });
});
