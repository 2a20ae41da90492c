// The fan-out syncs each probe's entities at every round: the same entities change nothing (the
// reads' view keeps its identity, so views built from it are kept), other entities do.
import { describe, expect, it } from 'vitest';
import type { FanOutEntity } from '../../src/domain.js';
import { EntityReads } from '../../src/state/entityReads.js';

const entity = (key: string, id: string): FanOutEntity => ({
  key,
  network: 'main',
  label: 'account',
  id,
  params: [id],
});

describe('EntityReads.sync', () => {
  it('keeps the view when a round syncs the same entities again', () => {
    const reads = new EntityReads();
    const list = [entity('a1', '0x1'), entity('a2', '0x2')];
    reads.sync('watchBalance', list);
    reads.succeeded('watchBalance', 'a1', 5n, 'n1', 1_000);
    const view = reads.view();
    const version = reads.version;
    reads.sync('watchBalance', list);
    reads.sync('watchBalance', [...list]);
    expect(reads.version).toBe(version);
    expect(reads.view()).toBe(view);
    expect(reads.get('watchBalance', 'a1')?.data).toBe(5n);
  });

  it('takes a new entity, a removed one or a new order as a change', () => {
    const reads = new EntityReads();
    const [a1, a2, a3] = [entity('a1', '0x1'), entity('a2', '0x2'), entity('a3', '0x3')];
    reads.sync('watchBalance', [a1, a2]);
    const keys = () =>
      reads
        .view()
        .get('watchBalance')!
        .map((r) => r.entity.key);
    reads.sync('watchBalance', [a1, a2, a3]);
    expect(keys()).toEqual(['a1', 'a2', 'a3']);
    reads.sync('watchBalance', [a1, a3]);
    expect(keys()).toEqual(['a1', 'a3']);
    reads.sync('watchBalance', [a3, a1]);
    expect(keys()).toEqual(['a3', 'a1']);
    // The same key for another address is another entity: its read starts afresh.
    reads.succeeded('watchBalance', 'a1', 5n, 'n1', 1_000);
    reads.sync('watchBalance', [a3, entity('a1', '0x9')]);
    expect(reads.get('watchBalance', 'a1')?.data).toBeUndefined();
  });

  it('an empty list synced again stays the same view', () => {
    const reads = new EntityReads();
    reads.sync('watchMinerInfo', []);
    const view = reads.view();
    reads.sync('watchMinerInfo', []);
    expect(reads.view()).toBe(view);
    expect(view.get('watchMinerInfo')).toEqual([]);
  });
});
