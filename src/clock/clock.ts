// The exporter's two clocks. `mono()` measures: every duration (poll schedule, `for`,
// keepFiringFor, group and repeat intervals, backoff, heartbeat health, stall windows) is a
// difference of its readings. It is monotonic, in ms on the epoch scale: anchored to the wall
// clock once, when the clock is made, then advanced only by the monotonic clock, so NTP, a VM
// resume or a hand-set clock stepping the wall clock changes none of its differences. `wall()` is
// the wall clock: it labels times for people and reads cron schedules. `toWall()` turns a
// monotonic reading into the wall time it happened at by the wall clock as it reads now.
import { performance } from 'node:perf_hooks';

export interface Clock {
  /** Wall-clock time (epoch ms); may step in either direction. */
  wall(): number;
  /** Monotonic time (ms on the epoch scale, anchored once); never steps. */
  mono(): number;
}

export function systemClock(): Clock {
  const anchor = Date.now() - performance.now();
  // Whole milliseconds, as the wall clock's: a time saved as wall time and read back as
  // monotonic (another process, another offset) is then the same millisecond, not one off.
  return { wall: () => Date.now(), mono: () => Math.floor(anchor + performance.now()) };
}

/** The process's clock: one anchor, so every part's monotonic readings compare. */
export const SYSTEM_CLOCK: Clock = systemClock();

/** Jitter of the two clocks read one after the other (each in whole ms), not a change of offset. */
const OFFSET_JITTER_MS = 5;
const offsets = new WeakMap<Clock, number>();

/**
 * How far the wall clock is ahead of the monotonic one (0 until a step, or drift). Held while it
 * moves by no more than read jitter, so a time shown twice, or saved and read back by another
 * process, is the same millisecond each time.
 */
export function wallOffset(clock: Clock): number {
  const fresh = clock.wall() - clock.mono();
  const kept = offsets.get(clock);
  if (kept !== undefined && Math.abs(fresh - kept) <= OFFSET_JITTER_MS) return kept;
  offsets.set(clock, fresh);
  return fresh;
}

/** The wall time of a monotonic reading, as the wall clock reads now. */
export function toWall(clock: Clock, mono: number): number {
  return mono + wallOffset(clock);
}

/**
 * The monotonic reading of a saved wall time (from a file written by an earlier process). A time
 * after now (the clock of the process that wrote it ran ahead) is taken as now: a saved time
 * never postpones anything.
 */
export function fromWall(clock: Clock, wall: number): number {
  const now = clock.mono();
  return Math.min(now, wall - wallOffset(clock));
}

/** A clock that moves only when told (tests): `advance` moves both, `step` only the wall clock. */
export class ManualClock implements Clock {
  private w: number;
  private m: number;

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.w = start;
    this.m = start;
  }

  wall(): number {
    return this.w;
  }

  mono(): number {
    return this.m;
  }

  advance(ms: number): void {
    this.w += ms;
    this.m += ms;
  }

  step(ms: number): void {
    this.w += ms;
  }
}
