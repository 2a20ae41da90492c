// Maintenance windows: which are active at an instant, and which one silences an alert's labels.
// Pure: every answer is a function of the configured windows and the instant passed in.
import { compileLabelMatch, type LabelMatch, type LabelMatcher } from './match.js';
import { CronStarts } from './cron.js';

const MINUTE_MS = 60_000;

export interface RecurringWindowSpec {
  name: string;
  /** Five-field cron expression, read in `timezone`. */
  schedule: string;
  timezone: string;
  durationMs: number;
  match: LabelMatch;
}

export interface OneOffWindowSpec {
  name: string;
  startMs: number;
  endMs: number;
  match: LabelMatch;
}

export type MaintenanceWindowSpec = RecurringWindowSpec | OneOffWindowSpec;

export const isRecurring = (w: MaintenanceWindowSpec): w is RecurringWindowSpec => 'schedule' in w;

/** One occurrence of a window: active on [since, until). */
export interface WindowOccurrence {
  name: string;
  since: number;
  until: number;
}

interface Window {
  readonly name: string;
  readonly matches: LabelMatcher;
  occurrenceAt(nowMs: number): WindowOccurrence | undefined;
  dispose(): void;
}

class OneOff implements Window {
  readonly matches: LabelMatcher;
  constructor(private readonly spec: OneOffWindowSpec) {
    this.matches = compileLabelMatch(spec.match);
  }
  get name() {
    return this.spec.name;
  }
  occurrenceAt(nowMs: number): WindowOccurrence | undefined {
    const { name, startMs, endMs } = this.spec;
    return nowMs >= startMs && nowMs < endMs ? { name, since: startMs, until: endMs } : undefined;
  }
  dispose(): void {}
}

class Recurring implements Window {
  readonly matches: LabelMatcher;
  private readonly starts: CronStarts;
  /**
   * Every start within the whole minutes [from, to], ascending. Evaluation asks about now (the
   * range grows by the new minutes) and about resolved alerts' times just before it (a binary
   * search): no question rescans the window's duration once its range is known.
   */
  private known: { from: number; to: number; starts: number[] } | undefined;

  constructor(private readonly spec: RecurringWindowSpec) {
    this.matches = compileLabelMatch(spec.match);
    this.starts = new CronStarts(spec.schedule, spec.timezone);
  }
  get name() {
    return this.spec.name;
  }
  occurrenceAt(nowMs: number): WindowOccurrence | undefined {
    const start = this.lastStart(nowMs);
    if (start === undefined || start + this.spec.durationMs <= nowMs) return undefined;
    return { name: this.spec.name, since: start, until: start + this.spec.durationMs };
  }
  dispose(): void {
    this.starts.dispose();
  }

  private lastStart(nowMs: number): number | undefined {
    const minute = Math.floor(nowMs / MINUTE_MS) * MINUTE_MS;
    const lookback = this.spec.durationMs;
    let k = this.known;
    // Far from the known range (a test, a clock set by hand): start a new one there.
    if (!k || minute > k.to + lookback || minute < k.to - lookback - 3_600_000)
      k = this.known = { from: minute + MINUTE_MS, to: minute, starts: [] };
    for (let t = k.to + MINUTE_MS; t <= minute; t += MINUTE_MS) if (this.starts.startsAt(t)) k.starts.push(t);
    k.to = Math.max(k.to, minute);
    // Back until a start at or before the minute, or the window's duration, is known.
    while (k.from > minute - lookback + MINUTE_MS && !(k.starts.length > 0 && k.starts[0]! <= minute)) {
      k.from -= MINUTE_MS;
      if (this.starts.startsAt(k.from)) k.starts.unshift(k.from);
    }
    this.prune(k);
    const start = latestAtOrBefore(k.starts, minute);
    return start !== undefined && start > minute - lookback ? start : undefined;
  }

  /** Keeps the range to the duration plus an hour before its end (resolved alerts are younger). */
  private prune(k: { from: number; to: number; starts: number[] }): void {
    const keepFrom = k.to - this.spec.durationMs - 3_600_000;
    if (k.from >= keepFrom) return;
    // The latest start before keepFrom still answers for the instants after it.
    let i = 0;
    while (i + 1 < k.starts.length && k.starts[i + 1]! <= keepFrom) i++;
    if (i === 0) return;
    k.starts.splice(0, i);
    k.from = k.starts[0]!;
  }
}

/** The latest value <= at in an ascending array (binary search), or undefined. */
function latestAtOrBefore(sorted: readonly number[], at: number): number | undefined {
  let lo = 0;
  let hi = sorted.length - 1;
  let found: number | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! <= at) {
      found = sorted[mid];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** The configured windows, in config order (the first matching active window names a silence). */
export class MaintenanceWindows {
  private readonly windows: Window[];

  constructor(specs: readonly MaintenanceWindowSpec[]) {
    this.windows = specs.map((s) => (isRecurring(s) ? new Recurring(s) : new OneOff(s)));
  }

  get names(): string[] {
    return this.windows.map((w) => w.name);
  }

  /** Windows active at `nowMs`, in config order. */
  active(nowMs: number): WindowOccurrence[] {
    return this.windows.flatMap((w) => w.occurrenceAt(nowMs) ?? []);
  }

  /** Name of the first active window whose `match` selects these labels, or undefined. */
  isSilenced(labels: Readonly<Record<string, string>>, nowMs: number): string | undefined {
    for (const w of this.windows) if (w.matches(labels) && w.occurrenceAt(nowMs)) return w.name;
    return undefined;
  }

  /** Releases node-cron's matchers (on reload and shutdown). */
  dispose(): void {
    for (const w of this.windows) w.dispose();
  }
}
