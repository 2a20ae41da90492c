// The deadline queue driven by a fake clock: a timer fires only when the test advances time.
import { describe, expect, it } from 'vitest';
import { Deadlines, type DeadlineClock, type DeadlineTimer } from '../../src/http/deadlines.js';

class FakeTimer implements DeadlineTimer {
  refed = true;
  constructor(
    readonly at: number,
    readonly fn: () => void,
  ) {}
  ref(): void {
    this.refed = true;
  }
  unref(): void {
    this.refed = false;
  }
}

class FakeClock implements DeadlineClock {
  t = 0;
  readonly timers = new Set<FakeTimer>();
  /** Timers set over the test (armed, fired or cleared). */
  sets = 0;
  now = () => this.t;
  set = (fn: () => void, ms: number): FakeTimer => {
    this.sets++;
    const timer = new FakeTimer(this.t + ms, fn);
    this.timers.add(timer);
    return timer;
  };
  clear = (timer: DeadlineTimer): void => void this.timers.delete(timer as FakeTimer);

  /** Moves the clock to `to`, firing each timer due on the way at its own time. */
  advanceTo(to: number): void {
    for (let i = 0; i < 10_000; i++) {
      let next: FakeTimer | undefined;
      for (const t of this.timers) if (t.at <= to && (!next || t.at < next.at)) next = t;
      if (!next) break;
      this.timers.delete(next);
      this.t = Math.max(this.t, next.at);
      next.fn();
    }
    this.t = to;
  }

  armed(): FakeTimer[] {
    return [...this.timers];
  }
}

describe('Deadlines', () => {
  it('passes a deadline once its time is up, not before, and tells its watcher', () => {
    const clock = new FakeClock();
    const deadlines = new Deadlines(clock);
    const d = deadlines.start(1000);
    let told = 0;
    d.watch({ deadlinePassed: () => told++ });
    clock.advanceTo(999);
    expect(d.passed).toBe(false);
    expect(told).toBe(0);
    clock.advanceTo(1000);
    expect(d.passed).toBe(true);
    expect(told).toBe(1);
    expect(deadlines.pending).toBe(0);
  });

  it('never passes a cleared deadline, and its watcher hears nothing', () => {
    const clock = new FakeClock();
    const deadlines = new Deadlines(clock);
    const d = deadlines.start(500);
    let told = 0;
    d.watch({ deadlinePassed: () => told++ });
    clock.advanceTo(100);
    d.clear();
    clock.advanceTo(5000);
    expect(d.passed).toBe(false);
    expect(told).toBe(0);
  });

  it('keeps one timer per length however many deadlines run, and passes each at its own time', () => {
    const clock = new FakeClock();
    const deadlines = new Deadlines(clock);
    const started: Array<ReturnType<Deadlines['start']>> = [];
    for (let i = 0; i < 100; i++) {
      clock.advanceTo(i * 10);
      started.push(deadlines.start(1000));
    }
    expect(clock.armed()).toHaveLength(1);
    expect(deadlines.pending).toBe(100);
    // Deadline i ends at i * 10 + 1000.
    clock.advanceTo(1495);
    expect(started.filter((d) => d.passed)).toHaveLength(50);
    expect(started.slice(0, 50).every((d) => d.passed)).toBe(true);
    expect(clock.armed()).toHaveLength(1);
    expect(clock.armed()[0]!.at).toBe(1500);
    clock.advanceTo(1990);
    expect(started.every((d) => d.passed)).toBe(true);
    expect(clock.armed()).toHaveLength(0);
  });

  it('skips cleared deadlines when it fires: the timer is armed for the next pending one', () => {
    const clock = new FakeClock();
    const deadlines = new Deadlines(clock);
    const a = deadlines.start(1000); // ends 1000
    clock.advanceTo(200);
    const b = deadlines.start(1000); // ends 1200
    clock.advanceTo(400);
    const c = deadlines.start(1000); // ends 1400
    a.clear();
    b.clear();
    clock.advanceTo(1000);
    expect(clock.armed().map((t) => t.at)).toEqual([1400]);
    clock.advanceTo(1399);
    expect(c.passed).toBe(false);
    clock.advanceTo(1400);
    expect([a.passed, b.passed, c.passed]).toEqual([false, false, true]);
  });

  it('lengths have their own queues: a short deadline started later passes first', () => {
    const clock = new FakeClock();
    const deadlines = new Deadlines(clock);
    const long = deadlines.start(5000);
    clock.advanceTo(100);
    const short = deadlines.start(200);
    clock.advanceTo(300);
    expect([long.passed, short.passed]).toEqual([false, true]);
    clock.advanceTo(5000);
    expect(long.passed).toBe(true);
  });

  it('does not keep the process alive for cleared deadlines only', () => {
    const clock = new FakeClock();
    const deadlines = new Deadlines(clock);
    const a = deadlines.start(1000);
    const [timer] = clock.armed();
    expect(timer!.refed).toBe(true);
    a.clear();
    expect(timer!.refed).toBe(false);
    const b = deadlines.start(1000);
    expect(clock.armed()).toEqual([timer]);
    expect(timer!.refed).toBe(true);
    b.clear();
    expect(timer!.refed).toBe(false);
    // Firing with nothing pending arms nothing more.
    clock.advanceTo(2000);
    expect(clock.armed()).toHaveLength(0);
  });

  it('a timer that fires early (coarse clock) is armed again for the rest, and passes nothing early', () => {
    const clock = new FakeClock();
    const deadlines = new Deadlines(clock);
    clock.t = 0.4;
    const d = deadlines.start(1000); // ends 1000.4; the timer is set for 1000 ms from now at 0.4
    const [timer] = clock.armed();
    clock.timers.delete(timer!);
    clock.t = 1000; // the timer fires a little early
    timer!.fn();
    expect(d.passed).toBe(false);
    expect(clock.armed()).toHaveLength(1);
    clock.advanceTo(1002);
    expect(d.passed).toBe(true);
  });

  it('stays correct over many deadlines (its arrays are compacted as it goes)', () => {
    const clock = new FakeClock();
    const deadlines = new Deadlines(clock);
    const kept: Array<ReturnType<Deadlines['start']>> = [];
    for (let i = 0; i < 20_000; i++) {
      clock.advanceTo(i);
      const d = deadlines.start(100);
      // Every 97th request hangs; the rest end within a few ms.
      if (i % 97 === 0) kept.push(d);
      else d.clear();
    }
    clock.advanceTo(20_200);
    expect(kept.every((d) => d.passed)).toBe(true);
    expect(deadlines.pending).toBe(0);
    // One timer at a time, armed again only when it fired: far fewer than one per deadline.
    expect(clock.sets).toBeLessThanOrEqual(kept.length * 2 + 2);
  });
});
