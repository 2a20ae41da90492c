// The request queue (admission.ts) and the failed-password throttle (authThrottle.ts), without a
// network: one start per turn of the event loop with a timer able to run between any two, the
// bounds (running, waiting, per address), and the doubling wait after repeated failures.
import { describe, expect, it } from 'vitest';
import { Admission, isRefusal } from '../../src/web/admission.js';
import { AuthThrottle } from '../../src/web/authThrottle.js';

const turn = () => new Promise((r) => setImmediate(r));

describe('request admission', () => {
  it('starts one request per turn of the event loop, so a due timer runs between any two', async () => {
    const a = new Admission();
    const order: string[] = [];
    const done = ['a', 'b', 'c'].map((name) =>
      a.run('10.0.0.1', () => {
        order.push(name);
        // Each start arms a timer and works past its due time (as a page render does): the
        // timer must fire before the next start.
        setTimeout(() => order.push(`timer after ${name}`), 0);
        const until = performance.now() + 3;
        while (performance.now() < until);
        return name;
      }),
    );
    expect(order).toEqual([]); // nothing runs in the caller's turn
    expect(await Promise.all(done)).toEqual(['a', 'b', 'c']);
    await new Promise((r) => setTimeout(r, 5));
    expect(order).toEqual(['a', 'timer after a', 'b', 'timer after b', 'c', 'timer after c']);
  });

  it('bounds what runs, what waits (503) and what one address holds (429)', async () => {
    const a = new Admission({ maxActive: 1, maxQueued: 2, perClient: 2 });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const first = a.run('x', () => held);
    const second = a.run('x', () => 'second');
    expect(await a.run('x', () => 'third')).toEqual({ refused: 429 });
    await turn();
    expect(a.load).toEqual({ active: 1, queued: 1 });
    const other = a.run('y', () => 'other');
    expect(await a.run('z', () => 'z')).toEqual({ refused: 503 });
    release();
    expect(await first).toBeUndefined();
    expect(await second).toBe('second');
    expect(await other).toBe('other');
    expect(isRefusal(await a.run('x', () => 'again'))).toBe(false);
    await turn();
    expect(a.load).toEqual({ active: 0, queued: 0 });
  });

  it('passes on a failure of the work and frees its place', async () => {
    const a = new Admission({ maxActive: 1, perClient: 1 });
    await expect(
      a.run('x', () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await a.run('x', () => 'next')).toBe('next');
  });
});

describe('failed-password throttle', () => {
  it('lets five failures through, then doubles the wait per failure, per address and user', () => {
    let now = 0;
    const t = new AuthThrottle(() => now);
    for (let i = 0; i < 5; i++) {
      expect(t.waitMs('a', 'ops')).toBe(0);
      t.failed('a', 'ops');
    }
    expect(t.waitMs('a', 'ops')).toBe(1_000);
    expect(t.waitMs('b', 'ops')).toBe(0);
    expect(t.waitMs('a', 'other')).toBe(0);
    now += 1_000;
    expect(t.waitMs('a', 'ops')).toBe(0);
    t.failed('a', 'ops');
    expect(t.waitMs('a', 'ops')).toBe(2_000);
    for (let i = 0; i < 20; i++) t.failed('a', 'ops');
    expect(t.waitMs('a', 'ops')).toBe(60_000);
    t.succeeded('a', 'ops');
    expect(t.waitMs('a', 'ops')).toBe(0);
  });

  it('forgets an address after a quiet quarter hour, keeps a bounded number, and bounds checks running', () => {
    let now = 0;
    const t = new AuthThrottle(() => now, { maxKeys: 3 });
    for (let i = 0; i < 6; i++) t.failed('a', 'ops');
    now += 15 * 60_000 + 1;
    expect(t.waitMs('a', 'ops')).toBe(0);
    for (let i = 0; i < 6; i++) t.failed('old', 'ops');
    for (const c of ['c1', 'c2', 'c3']) t.failed(c, 'ops');
    expect(t.waitMs('old', 'ops')).toBe(0); // dropped as the oldest
    expect(t.enter('x')).toBe(true);
    expect(t.enter('x')).toBe(true);
    expect(t.enter('x')).toBe(false);
    t.leave('x');
    expect(t.enter('x')).toBe(true);
  });
});
