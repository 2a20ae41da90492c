// Maintenance windows: which are active at an instant, and which one silences an alert's labels.
// Pure: every answer is a function of the configured windows and the instant passed in.
import { compileLabelMatch, type LabelMatch, type LabelMatcher } from './maintenanceMatch.js';
import { CronStarts } from './maintenanceCron.js';

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
  // Last answer: the minute asked and the latest start found at or before it. Evaluation asks
  // every few seconds, so moving forward scans only the new minutes instead of the whole duration.
  private memo: { minute: number; start: number | undefined } | undefined;

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
    const memo = this.memo;
    let start: number | undefined;
    if (memo && minute >= memo.minute && minute - memo.minute <= this.spec.durationMs) {
      start = memo.start;
      for (let t = memo.minute + MINUTE_MS; t <= minute; t += MINUTE_MS) if (this.starts.startsAt(t)) start = t;
    } else {
      start = this.starts.lastStart(nowMs, this.spec.durationMs);
    }
    this.memo = { minute, start };
    return start;
  }
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
