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
  return { wall: () => Date.now(), mono: () => anchor + performance.now() };
}

/** The process's clock: one anchor, so every part's monotonic readings compare. */
export const SYSTEM_CLOCK: Clock = systemClock();

/** How far the wall clock is ahead of the monotonic one now (0 until a step, or drift). */
export function wallOffset(clock: Clock): number {
  return clock.wall() - clock.mono();
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
