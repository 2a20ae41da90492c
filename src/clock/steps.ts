// Notices a step of the wall clock: the gap between the wall and the monotonic clock jumps. The
// exporter measures nothing on the wall clock, so a step changes only the times it labels; it is
// told once per step (log line, counter) so a person can match labels before and after it. A
// slew (NTP adjusting the rate) moves the gap by milliseconds per check and stays below the bound.
import { wallOffset, type Clock } from './clock.js';

/** A gap change larger than this between two checks is a step. */
export const STEP_THRESHOLD_MS = 1_000;
/** How often the gap is looked at. */
export const STEP_CHECK_EVERY_MS = 1_000;

export interface ClockStep {
  /** How far the wall clock moved against the monotonic one (ms; negative: backward). */
  stepMs: number;
  /** The wall clock's reading after the step. */
  wallAfter: number;
}

export class ClockStepWatch {
  private offset: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly onStep: (step: ClockStep) => void,
    private readonly thresholdMs = STEP_THRESHOLD_MS,
  ) {
    this.offset = wallOffset(clock);
  }

  /** Compares the gap with the last check's; reports a step once. */
  check(): ClockStep | undefined {
    const offset = wallOffset(this.clock);
    const stepMs = offset - this.offset;
    this.offset = offset;
    if (Math.abs(stepMs) <= this.thresholdMs) return undefined;
    const step = { stepMs, wallAfter: this.clock.wall() };
    this.onStep(step);
    return step;
  }

  start(everyMs = STEP_CHECK_EVERY_MS): void {
    this.timer ??= setInterval(() => this.check(), everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
