// In-memory range vectors for the engine: the few alerts that look back in time (changes,
// max_over_time, increase) record one value per series at each evaluation and read a window.

interface Series {
  points: Array<{ t: number; v: number }>;
  windowMs: number;
  lastTouched: number;
  /** When the series was first recorded: a window reaching further back has seen only part of it. */
  since: number;
}

export class RangeStore {
  private readonly series = new Map<string, Series>();

  /** Records `value` (when defined) at `now` and returns the values within `windowMs`, oldest first. */
  read(key: string, value: number | undefined, windowMs: number, now: number): number[] {
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { points: [], windowMs, lastTouched: now, since: now }));
    s.windowMs = windowMs;
    s.lastTouched = now;
    if (value !== undefined && Number.isFinite(value)) s.points.push({ t: now, v: value });
    const from = now - windowMs;
    let drop = 0;
    while (drop < s.points.length && s.points[drop]!.t < from) drop++;
    if (drop > 0) s.points.splice(0, drop);
    return s.points.map((p) => p.v);
  }

  /**
   * How long `key` has been recorded at `now` (0 when never): PromQL's `x offset <window>` exists iff it is at least
   * the window.
   */
  age(key: string, now: number): number {
    const s = this.series.get(key);
    return s ? now - s.since : 0;
  }

  /** Forgets series not read for longer than their window (removed nodes and networks). */
  sweep(now: number): void {
    for (const [key, s] of this.series) if (now - s.lastTouched > s.windowMs) this.series.delete(key);
  }

  get size(): number {
    return this.series.size;
  }
}

/** increase() of a counter over the recorded values; a drop is a counter reset. */
export function counterIncrease(values: readonly number[]): number {
  let total = 0;
  for (let i = 1; i < values.length; i++) {
    const prev = values[i - 1]!;
    const cur = values[i]!;
    total += cur >= prev ? cur - prev : cur;
  }
  return total;
}
