// The scheduler driven by a fake clock: timers fire only when the test advances time, and
// "blocking the event loop" is time passing with no timer run.
import { describe, expect, it } from 'vitest';
import type { NodeTarget, ProbeName } from '../../src/domain.js';
import {
  MAX_SLOT_MS,
  Scheduler,
  Semaphore,
  slotMs,
  startOffset,
  tickPhase,
  type Timers,
} from '../../src/schedule/scheduler.js';
import { target } from '../support/targets.js';

class FakeClock {
  now = 0;
  private seq = 0;
  private readonly pending = new Map<number, { at: number; fn: () => void }>();
  readonly timers: Timers = {
    set: (fn, ms) => {
      const id = ++this.seq;
      this.pending.set(id, { at: this.now + Math.max(0, ms), fn });
      return id;
    },
    clear: (handle) => void this.pending.delete(handle as number),
  };

  /** Runs every timer due up to now + ms, each at its own time, letting promises settle between. */
  async advance(ms: number): Promise<void> {
    await settle();
    const end = this.now + ms;
    for (let i = 0; i < 1_000_000; i++) {
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const e of this.pending)
        if (e[1].at <= end && (!next || e[1].at < next[1].at || (e[1].at === next[1].at && e[0] < next[0]))) next = e;
      if (!next) break;
      this.pending.delete(next[0]);
      this.now = Math.max(this.now, next[1].at);
      next[1].fn();
      await settle();
    }
    this.now = end;
    await settle();
  }

  /** Time passes while the event loop is busy: no timer runs. */
  block(ms: number): void {
    this.now += ms;
  }
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

interface Harness {
  clock: FakeClock;
  scheduler: Scheduler;
  starts: Array<{ node: string; probe: ProbeName; at: number }>;
  overruns: Array<{ node: string; probe: ProbeName; at: number }>;
  inFlight: () => number;
  maxInFlight: () => number;
  /** Most probes of one node in flight at once, over the run. */
  maxPerNode: () => number;
  release: () => void;
}

/** `hold`: probes stay in flight until release(); otherwise they finish at once. */
function harness(opts: { concurrency?: number; hold?: boolean } = {}): Harness {
  const clock = new FakeClock();
  const starts: Harness['starts'] = [];
  const overruns: Harness['overruns'] = [];
  let gate = deferred();
  let inFlight = 0;
  let maxInFlight = 0;
  const perNode = new Map<string, number>();
  let maxPerNode = 0;
  const scheduler = new Scheduler({
    concurrency: opts.concurrency ?? 64,
    clock: { wall: () => clock.now, mono: () => clock.now },
    timers: clock.timers,
    isDue: () => true,
    onOverrun: (t, probe) => void overruns.push({ node: t.name, probe, at: clock.now }),
    runProbe: async (t, probe) => {
      starts.push({ node: t.name, probe, at: clock.now });
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      perNode.set(t.name, (perNode.get(t.name) ?? 0) + 1);
      maxPerNode = Math.max(maxPerNode, perNode.get(t.name)!);
      if (opts.hold) await gate.promise;
      perNode.set(t.name, perNode.get(t.name)! - 1);
      inFlight--;
    },
  });
  return {
    clock,
    scheduler,
    starts,
    overruns,
    inFlight: () => inFlight,
    maxInFlight: () => maxInFlight,
    maxPerNode: () => maxPerNode,
    release: () => {
      gate.resolve();
      gate = deferred();
    },
  };
}

const node = (name: string, intervalMs = 1_000, probes: ProbeName[] = ['health']): NodeTarget =>
  target(name, { intervalMs, probes });
const startsOf = (h: Harness, name: string) => h.starts.filter((s) => s.node === name).map((s) => s.at);

describe('Scheduler', () => {
  it('spreads first ticks over the interval, each node on its own stable offset', async () => {
    const h = harness();
    const nodes = Array.from({ length: 1_000 }, (_, i) => node(`node-${i}`, 10_000));
    h.scheduler.start(nodes);
    await h.clock.advance(9_999);
    expect(h.starts).toHaveLength(1_000);
    const buckets = new Array<number>(10).fill(0);
    for (const s of h.starts) buckets[Math.floor(s.at / 1_000)]!++;
    // Uniform would be 100 per tenth of the interval; a fleet firing at once would fill one bucket.
    for (const b of buckets) {
      expect(b).toBeGreaterThan(60);
      expect(b).toBeLessThan(140);
    }
    for (const n of nodes.slice(0, 20)) expect(startsOf(h, n.name)).toEqual([tickPhase(n.name, 10_000)]);
    await h.scheduler.stop(0);
  });

  it('fires the nodes of one slot together, from one timer, at most one slot before their hashed offset', async () => {
    const h = harness();
    let timersSet = 0;
    const set = h.clock.timers.set;
    h.clock.timers.set = (fn, ms) => (timersSet++, set(fn, ms));
    const nodes = Array.from({ length: 1_000 }, (_, i) => node(`node-${i}`, 15_000));
    h.scheduler.start(nodes);
    await h.clock.advance(15_000 - 1);
    expect(slotMs(15_000)).toBe(MAX_SLOT_MS);
    const times = new Set(h.starts.map((s) => s.at));
    // 15 slots of 1 s: one timer each per round, not one per node.
    const slots = 15_000 / MAX_SLOT_MS;
    expect(times.size).toBeLessThanOrEqual(slots);
    expect(times.size).toBeGreaterThan(slots * 0.8);
    expect(timersSet).toBeLessThanOrEqual(2 * slots);
    for (const s of h.starts) {
      const offset = startOffset(s.node, 15_000);
      expect(s.at % MAX_SLOT_MS).toBe(0);
      expect(offset - s.at).toBeGreaterThanOrEqual(0);
      expect(offset - s.at).toBeLessThan(MAX_SLOT_MS);
    }
    // Short intervals keep at least eight slots.
    expect(slotMs(1_000)).toBe(125);
    expect(slotMs(500)).toBe(62);
    await h.scheduler.stop(0);
  });

  it('skips a probe whose previous run is still waiting on its node, without counting an overrun', async () => {
    const h = harness({ hold: true });
    const n = node('slow', 1_000);
    h.scheduler.start([n]);
    const first = tickPhase('slow', 1_000);
    await h.clock.advance(first + 3_000);
    expect(startsOf(h, 'slow')).toEqual([first]);
    // The node holds its place and keeps the exporter waiting: its problem, not an exporter overrun.
    expect(h.overruns).toEqual([]);
    h.release();
    await h.clock.advance(1_000);
    expect(startsOf(h, 'slow')).toEqual([first, first + 4_000]);
    h.release();
    await h.scheduler.stop(0);
  });

  it('counts an overrun when the previous poll still waits for a place under the concurrency bound', async () => {
    const h = harness({ concurrency: 1, hold: true });
    const a = node('a', 1_000);
    // Another node in the same slot, so both are due at once and one of them must queue.
    let b: NodeTarget | undefined;
    for (let i = 0; !b; i++) if (tickPhase(`b${i}`, 1_000) === tickPhase('a', 1_000)) b = node(`b${i}`, 1_000);
    h.scheduler.start([a, b]);
    const first = tickPhase('a', 1_000);
    await h.clock.advance(first + 2_000);
    expect(h.starts).toHaveLength(1);
    const waiting = a.name === h.starts[0]!.node ? b.name : a.name;
    expect(h.overruns.map((o) => [o.node, o.at])).toEqual([
      [waiting, first + 1_000],
      [waiting, first + 2_000],
    ]);
    h.release();
    await h.clock.advance(0);
    h.release();
    await h.scheduler.stop(0);
  });

  it('one hung node among many: the others keep their grid and no overrun is counted', async () => {
    const clock = new FakeClock();
    const overruns: string[] = [];
    const starts = new Map<string, number>();
    const probes: ProbeName[] = ['health', 'blockNumber', 'metrics', 'validators', 'miningStats'];
    const scheduler = new Scheduler({
      concurrency: 8,
      clock: { wall: () => clock.now, mono: () => clock.now },
      timers: clock.timers,
      isDue: () => true,
      onOverrun: (t) => void overruns.push(t.name),
      runProbe: async (t) => {
        starts.set(t.name, (starts.get(t.name) ?? 0) + 1);
        // Each request of the hung node runs into its 2 s timeout: five probes take 10 s, twice the interval.
        if (t.name === 'hung') await new Promise<void>((r) => clock.timers.set(r, 2_000));
      },
    });
    const nodes = [node('hung', 5_000, probes), ...Array.from({ length: 40 }, (_, i) => node(`n${i}`, 5_000, probes))];
    scheduler.start(nodes);
    await clock.advance(60_000);
    expect(overruns).toEqual([]);
    // 12 or 13 ticks in 60 s (13 when the node's phase is 0), every one of them run.
    for (let i = 0; i < 40; i++) {
      const ticks = tickPhase(`n${i}`, 5_000) === 0 ? 13 : 12;
      expect(starts.get(`n${i}`)).toBe(ticks * probes.length);
    }
    // The hung node's ticks during its 10 s polls are skipped; it is polled again on the next free tick.
    expect(starts.get('hung')).toBeGreaterThanOrEqual(3 * probes.length);
    expect(starts.get('hung')).toBeLessThan(12 * probes.length);
    await scheduler.stop(0);
  });

  it('never runs more probes at once than the concurrency bound; queued ones run in turn', async () => {
    const h = harness({ concurrency: 3, hold: true });
    h.scheduler.start(Array.from({ length: 10 }, (_, i) => node(`n${i}`, 1_000, ['health', 'metrics'])));
    await h.clock.advance(999);
    expect(h.inFlight()).toBe(3);
    expect(h.scheduler.stats()).toMatchObject({ inFlight: 3, queued: 7 }); // node-polls
    for (let i = 0; i < 10 && h.starts.length < 20; i++) {
      h.release();
      await h.clock.advance(0);
    }
    expect(h.starts).toHaveLength(20);
    expect(h.maxInFlight()).toBe(3);
    h.release();
    await h.scheduler.stop(0);
  });

  it("runs a node's probes one after another, in the configured order", async () => {
    const h = harness({ hold: true });
    const probes: ProbeName[] = ['health', 'blockNumber', 'metrics'];
    h.scheduler.start([node('seq', 10_000, probes), node('other', 10_000, probes)]);
    await h.clock.advance(9_999);
    for (let i = 0; i < 5; i++) {
      h.release();
      await h.clock.advance(0);
    }
    expect(h.starts.filter((s) => s.node === 'seq').map((s) => s.probe)).toEqual(probes);
    expect(h.starts).toHaveLength(6);
    expect(h.maxPerNode()).toBe(1);
    expect(h.maxInFlight()).toBe(2); // nodes still run side by side
    h.release();
    await h.scheduler.stop(0);
  });

  it('keeps a node on its phase across a reload; a new interval starts a new grid', async () => {
    const h = harness();
    const offset = tickPhase('keep', 1_000);
    h.scheduler.start([node('keep', 1_000), node('gone', 1_000)]);
    await h.clock.advance(2_500);
    // A reload with new target objects (labels changed), one node removed, one added.
    h.scheduler.setTargets([
      target('keep', { intervalMs: 1_000, probes: ['health'], labels: { role: 'x' } }),
      node('new', 1_000),
    ]);
    await h.clock.advance(3_000);
    const keep = startsOf(h, 'keep');
    expect(keep.length).toBeGreaterThanOrEqual(5);
    for (const at of keep) expect(at % 1_000).toBe(offset);
    expect(startsOf(h, 'gone').every((at) => at < 2_500)).toBe(true);
    expect(startsOf(h, 'new').length).toBeGreaterThanOrEqual(2);

    h.scheduler.setTargets([node('keep', 3_000)]);
    await h.clock.advance(9_000);
    const after = startsOf(h, 'keep').filter((at) => at > 5_500);
    // The grid is anchored on the clock: the first point of the new one after the reload.
    const phase = tickPhase('keep', 3_000);
    expect(after[0]).toBe(phase + Math.ceil((5_500 - phase) / 3_000) * 3_000);
    expect(after.slice(1).map((at, i) => at - after[i]!)).toEqual([3_000, 3_000]);
    await h.scheduler.stop(0);
  });

  it.each([1_500, 2_500, 3_500, 10_250])(
    'runs one late tick after the event loop was blocked %i ms, then returns to its grid',
    async (blockedMs) => {
      const h = harness();
      const offset = tickPhase('busy', 1_000);
      h.scheduler.start([node('busy', 1_000)]);
      await h.clock.advance(offset);
      expect(startsOf(h, 'busy')).toEqual([offset]);
      h.clock.block(blockedMs);
      const resumedAt = h.clock.now;
      await h.clock.advance(0);
      await h.clock.advance(2_000);
      const later = startsOf(h, 'busy').slice(1);
      expect(later[0]).toBe(resumedAt); // the overdue tick, once
      const rest = later.slice(1);
      expect(rest).toHaveLength(2);
      // No catch-up burst: the next tick is the first grid point after the late one.
      expect(rest[0]! - resumedAt).toBeGreaterThan(0);
      expect(rest[0]! - resumedAt).toBeLessThanOrEqual(1_000);
      for (const at of rest) expect(at % 1_000).toBe(offset);
      const late = h.scheduler.stats().lateness;
      expect(late.count).toBe(4);
      expect(late.maxMs).toBe(resumedAt - (offset + 1_000));
      await h.scheduler.stop(0);
    },
  );

  it('stops ticking after stop()', async () => {
    const h = harness();
    h.scheduler.start([node('a', 1_000)]);
    await h.clock.advance(2_000);
    const before = h.starts.length;
    expect(before).toBeGreaterThan(0);
    expect(await h.scheduler.stop(0)).toBe(true);
    await h.clock.advance(5_000);
    expect(h.starts).toHaveLength(before);
  });
});

describe('Semaphore', () => {
  it('gives places at once while free, then in the order callers asked, never more than its limit', async () => {
    const sem = new Semaphore(2);
    expect(sem.tryTake()).toBe(true);
    expect(sem.tryTake()).toBe(true);
    expect(sem.tryTake()).toBe(false);
    const order: string[] = [];
    const a = sem.take().then(() => order.push('a'));
    const b = sem.take().then(() => order.push('b'));
    await settle();
    expect(order).toEqual([]);
    expect([sem.inFlight, sem.queued]).toEqual([2, 2]);
    // A place given back goes to the first waiter, not to a caller that arrives later.
    sem.give();
    expect(sem.tryTake()).toBe(false);
    await a;
    expect(order).toEqual(['a']);
    sem.give();
    await b;
    expect(order).toEqual(['a', 'b']);
    expect([sem.inFlight, sem.queued]).toEqual([2, 0]);
  });
});
