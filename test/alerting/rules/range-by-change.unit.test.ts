// The engine's look-back keeps a point only when the value changes: what it holds is bounded by how
// often the value changes, not by how often it is evaluated, and every reading of it (changes,
// max_over_time, increase, "all the same") answers as with one point per evaluation.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { counterIncrease, RangeStore } from '../../../src/alerting/rules/range.js';

const HOUR = 3_600_000;

/** One point per evaluation, as the engine kept them before: the reference the store must agree with. */
function reference(points: Array<{ t: number; v: number | undefined }>, windowMs: number, now: number): number[] {
  return points.filter((p) => p.v !== undefined && p.t >= now - windowMs).map((p) => p.v!);
}

describe('RangeStore', () => {
  it('a commission read every second for an hour, unchanged, is held as one point', () => {
    const store = new RangeStore();
    let seen: number[] = [];
    for (let t = 0; t <= HOUR; t += 1000) seen = store.read('commission', 0.05, HOUR, t);
    expect(seen).toEqual([0.05]);
    expect(store.pointCount()).toBe(1);
  });

  it('334 validators at a 1 s evaluation interval over an hour hold one point each while nothing changes', () => {
    const store = new RangeStore();
    for (let t = 0; t <= HOUR; t += 1000)
      for (let v = 0; v < 334; v++) store.read(`commission\u0000${v}`, (v % 20) / 100, HOUR, t);
    expect(store.pointCount()).toBe(334);
  });

  it('a change inside the window is seen until it leaves the window, then forgotten', () => {
    const store = new RangeStore();
    for (let t = 0; t < 600_000; t += 1000) store.read('k', 0.05, HOUR, t);
    for (let t = 600_000; t <= HOUR; t += 1000) store.read('k', 0.1, HOUR, t);
    expect(store.read('k', 0.1, HOUR, HOUR + 1000)).toEqual([0.05, 0.1]);
    expect(store.read('k', 0.1, HOUR, HOUR + 600_000)).toEqual([0.1]);
    expect(store.pointCount()).toBe(1);
  });

  it('answers every reading the engine makes as one point per evaluation did (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }), { minLength: 1, maxLength: 300 }),
        fc.integer({ min: 1, max: 60 }),
        (values, windowSteps) => {
          const store = new RangeStore();
          const windowMs = windowSteps * 1000;
          const all: Array<{ t: number; v: number | undefined }> = [];
          values.forEach((v, i) => {
            const t = i * 1000;
            all.push({ t, v });
            const got = store.read('k', v, windowMs, t);
            const want = reference(all, windowMs, t);
            expect(counterIncrease(got)).toBe(counterIncrease(want));
            expect(got.length === 0).toBe(want.length === 0);
            if (want.length > 0) {
              expect(Math.max(...got)).toBe(Math.max(...want));
              expect(got.every((x) => x === got[0])).toBe(want.every((x) => x === want[0]));
              if (v !== undefined) expect(got.some((x) => x !== v)).toBe(want.some((x) => x !== v));
            }
          });
        },
      ),
    );
  });
});
