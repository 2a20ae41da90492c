// The live maintenance windows: node-cron fires each recurring window's start, a timer marks
// each end (and one-off starts), and every change is logged once and announced through
// `onChange` so the daemon can evaluate right away. Suppression itself never depends on these
// timers: `isSilenced` computes from the clock, so a missed or late timer changes nothing but
// the moment of a log line.
import { schedule as cronSchedule, type ScheduledTask } from 'node-cron';
import { isRecurring, MaintenanceWindows, type MaintenanceWindowSpec, type WindowOccurrence } from './windows.js';

export interface MaintenanceLog {
  info(obj: object, msg: string): void;
}

export interface MaintenanceScheduleOptions {
  log: MaintenanceLog;
  now?: () => number;
  /** Called after a window started or ended (not for windows unchanged by a reload). */
  onChange?: (active: readonly WindowOccurrence[]) => void;
}

// setTimeout holds at most ~24.8 days; a far end is reached in steps.
const MAX_TIMER_MS = 6 * 3_600_000;

export class MaintenanceSchedule {
  private readonly now: () => number;
  private windows = new MaintenanceWindows([]);
  private specs: readonly MaintenanceWindowSpec[] = [];
  private tasks: ScheduledTask[] = [];
  private timer: NodeJS.Timeout | undefined;
  private current = new Map<string, WindowOccurrence>();

  constructor(private readonly opts: MaintenanceScheduleOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Start-up and every reload: windows already in progress are recognised at once. */
  apply(specs: readonly MaintenanceWindowSpec[]): void {
    this.clear();
    this.specs = specs;
    this.windows = new MaintenanceWindows(specs);
    this.tasks = specs
      .filter(isRecurring)
      .map((w) =>
        cronSchedule(w.schedule, () => this.refresh(), { timezone: w.timezone, name: `maintenance:${w.name}` }),
      );
    this.refresh();
  }

  /** The dispatcher's hook: the first active window silencing these labels. */
  isSilenced = (labels: Readonly<Record<string, string>>, nowMs: number): string | undefined =>
    this.windows.isSilenced(labels, nowMs);

  /** Configured window names (for the metric: every window has a series, 0 or 1). */
  names(): string[] {
    return this.specs.map((s) => s.name);
  }

  active(nowMs = this.now()): WindowOccurrence[] {
    return this.windows.active(nowMs);
  }

  /** Recomputes the active set, logs what started or ended, and arms the next end timer. */
  refresh(): WindowOccurrence[] {
    const t = this.now();
    const active = this.windows.active(t);
    const next = new Map(active.map((o) => [o.name, o]));
    let changed = false;
    for (const o of active) {
      if (this.current.has(o.name)) continue;
      changed = true;
      this.opts.log.info(
        { window: o.name, since: new Date(o.since).toISOString(), until: new Date(o.until).toISOString() },
        'maintenance window started',
      );
    }
    for (const name of this.current.keys()) {
      if (next.has(name)) continue;
      changed = true;
      this.opts.log.info({ window: name }, 'maintenance window ended');
    }
    this.current = next;
    this.arm(t, active);
    if (changed) this.opts.onChange?.(active);
    return active;
  }

  stop(): void {
    this.clear();
    this.windows = new MaintenanceWindows([]);
    this.specs = [];
    this.current.clear();
  }

  private arm(t: number, active: readonly WindowOccurrence[]): void {
    clearTimeout(this.timer);
    const edges = active.map((o) => o.until);
    for (const s of this.specs) if (!isRecurring(s)) edges.push(s.startMs, s.endMs);
    const future = edges.filter((e) => e > t);
    if (future.length === 0) return;
    this.timer = setTimeout(() => this.refresh(), Math.min(Math.min(...future) - t, MAX_TIMER_MS)).unref();
  }

  private clear(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const task of this.tasks) void task.destroy();
    this.tasks = [];
    this.windows.dispose();
  }
}

export { maintenanceCollectors } from './metrics.js';
