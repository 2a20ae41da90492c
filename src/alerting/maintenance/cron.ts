// When does a recurring maintenance window start? Cron expression + IANA timezone -> start instants.
//
// node-cron 4 parses and validates the expression and has a matcher (`ScheduledTask.match(date)`),
// but it cannot say "which start came last before T": getNextRun()/getNextRuns() only look
// forward from the real clock, and TimeMatcher/MatcherWalker are not exported. So we step back
// minute by minute, at most the window's duration, asking at each minute the expression's
// fields expanded (cronFields.ts; node-cron's matcher for syntax they do not cover).
//
// The matcher is asked about the *wall clock* of the timezone (read with Intl, encoded as a UTC
// date and matched by a task pinned to Etc/UTC), which lets daylight saving follow cron's
// usual rule instead of node-cron's instant-based one:
// - a wall time skipped by a spring-forward change (02:30 in Europe/Berlin on the last Sunday of
//   March) starts the window at the first instant after the gap (03:00 local), rather than
//   dropping that week's window;
// - a wall time repeated by a fall-back change (02:30 twice on the last Sunday of October) starts
//   the window once, at its first occurrence; `duration` is always elapsed time.
import { createTask, type ScheduledTask } from 'node-cron';
import { expandCron, matchesFields, type CronFields } from './cronFields.js';

const MINUTE_MS = 60_000;

/** Wall clock of an instant in a timezone, as a UTC epoch (minutes precision) with the same fields. */
export type WallClock = (instantMs: number) => number;

const wallClocks = new Map<string, WallClock>();

/** Throws a RangeError for a timezone Intl does not know. */
export function wallClockOf(timezone: string): WallClock {
  const cached = wallClocks.get(timezone);
  if (cached) return cached;
  const fmt = new Intl.DateTimeFormat('en-US', {
    timeZone: timezone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
  });
  const slow = (instantMs: number) => {
    const f: Record<string, number> = {};
    for (const p of fmt.formatToParts(new Date(instantMs))) if (p.type !== 'literal') f[p.type] = Number(p.value);
    return Date.UTC(f.year ?? 0, (f.month ?? 1) - 1, f.day ?? 1, f.hour ?? 0, f.minute ?? 0);
  };
  // Intl costs tens of microseconds: the offset is read once per UTC hour, at its first and last
  // minute, and taken for the whole hour when both agree (offsets change at most once an hour).
  const hours = new Map<number, number | null>();
  const offsetAt = (minuteMs: number) => slow(minuteMs) - minuteMs;
  const clock: WallClock = (instantMs) => {
    const minute = Math.floor(instantMs / MINUTE_MS) * MINUTE_MS;
    const hour = Math.floor(minute / 3_600_000);
    let o = hours.get(hour);
    if (o === undefined) {
      if (hours.size > 50_000) hours.clear();
      const first = offsetAt(hour * 3_600_000);
      o = first === offsetAt(hour * 3_600_000 + 59 * MINUTE_MS) ? first : null;
      hours.set(hour, o);
    }
    return minute + (o ?? offsetAt(minute));
  };
  wallClocks.set(timezone, clock);
  return clock;
}

/** Why `timezone` cannot be used, or undefined when Intl knows it. */
export function timezoneReason(timezone: string): string | undefined {
  try {
    wallClockOf(timezone);
    return undefined;
  } catch {
    return 'unknown timezone: expected an IANA name such as Europe/Berlin, America/New_York or UTC';
  }
}

/** Start instants of one recurring window; `dispose()` releases node-cron's task. */
export class CronStarts {
  private readonly task: ScheduledTask;
  private readonly wall: WallClock;
  private readonly fields: CronFields | undefined;

  constructor(schedule: string, timezone: string) {
    this.wall = wallClockOf(timezone);
    this.fields = expandCron(schedule);
    // Never started: used only for its matcher, over wall clocks encoded as UTC dates.
    this.task = createTask(schedule, () => undefined, { timezone: 'Etc/UTC' });
  }

  /** Does a window start at this whole minute (epoch ms, multiple of 60 000)? */
  startsAt(minuteMs: number): boolean {
    const wall = this.wall(minuteMs);
    const offset = wall - minuteMs;
    const before = this.wall(minuteMs - MINUTE_MS) - (minuteMs - MINUTE_MS);
    if (offset > before) {
      // Spring forward at this minute: the skipped wall minutes start here.
      for (let w = wall - (offset - before); w < wall; w += MINUTE_MS) if (this.matchesWall(w)) return true;
    }
    return this.matchesWall(wall) && !this.repeatsEarlierWall(minuteMs, wall, offset);
  }

  /** Latest start at or before `atMs` and no older than `lookbackMs`, or undefined. */
  lastStart(atMs: number, lookbackMs: number): number | undefined {
    const from = Math.floor(atMs / MINUTE_MS) * MINUTE_MS;
    // Bounded: at most lookbackMs / 1 min steps (the window duration, capped by config).
    for (let t = from; t > atMs - lookbackMs; t -= MINUTE_MS) if (this.startsAt(t)) return t;
    return undefined;
  }

  dispose(): void {
    void this.task.destroy();
  }

  private matchesWall(wallMs: number): boolean {
    return this.fields ? matchesFields(this.fields, wallMs) : this.task.match(new Date(wallMs));
  }

  /** After a fall-back change the same wall minute comes twice; only the first one counts. */
  private repeatsEarlierWall(minuteMs: number, wall: number, offset: number): boolean {
    // Real offset changes are at most a few hours apart from any instant of interest; 3 h covers them.
    const earlier = minuteMs - 3 * 3_600_000;
    const back = this.wall(earlier) - earlier - offset;
    return back > 0 && this.wall(minuteMs - back) === wall;
  }
}
