// In-memory range vectors for the engine: the few alerts that look back in time (changes,
// max_over_time, increase) read a window of a series' values. A point is kept only when the value
// changes (a run of equal values is one point, its last time extended), so what a series holds is
// bounded by how often its value changes, not by how often the engine evaluates: a commission read
// every second for an hour is one point, not 3,600. Every reading the alerts make (increase, max,
// "any other value", "all the same") answers as with one point per evaluation.

interface Run {
  v: number;
  /** When this value was last recorded: the run is in a window that reaches back to it. */
  last: number;
}

interface Series {
  runs: Run[];
  windowMs: number;
  lastTouched: number;
  /** When the series was first recorded: a window reaching further back has seen only part of it. */
  since: number;
}

export class RangeStore {
  private readonly series = new Map<string, Series>();

  /**
   * Records `value` (when defined) at `now` and returns the values within `windowMs`, oldest first,
   * each repeat of the value before it left out.
   */
  read(key: string, value: number | undefined, windowMs: number, now: number): number[] {
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { runs: [], windowMs, lastTouched: now, since: now }));
    s.windowMs = windowMs;
    s.lastTouched = now;
    if (value !== undefined && Number.isFinite(value)) {
      const tail = s.runs[s.runs.length - 1];
      if (tail && tail.v === value) tail.last = now;
      else s.runs.push({ v: value, last: now });
    }
    const from = now - windowMs;
    let drop = 0;
    while (drop < s.runs.length && s.runs[drop]!.last < from) drop++;
    if (drop > 0) s.runs.splice(0, drop);
    return s.runs.map((r) => r.v);
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

  /** Points held over all series (what the look-back costs in memory). */
  pointCount(): number {
    let n = 0;
    for (const s of this.series.values()) n += s.runs.length;
    return n;
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
