// Durable range vectors: what range.ts is for the look-back alerts, for the few whose memory must
// survive a restart (a delegation that shrank or vanished, an agent's score that fell): a restart
// must neither resolve nor re-fire them. Values are exact integers (u128 amounts, basis points).
// As in range.ts a run of equal values is one point (value, first and last time seen), so a value
// read every second for a day is one point. Times here are monotonic; the file holds wall times
// (notify/memoryFile.ts). Pure apart from the times it is given.

export interface DurableRun {
  v: bigint;
  /** First and last time this value was recorded (a new value starts a new run). */
  from: number;
  to: number;
}

interface Series {
  windowMs: number;
  runs: DurableRun[];
}

/** What a definition sees: `read` records (when defined) and returns the values within the window. */
export interface DurableRangeFn {
  read(key: string, value: bigint | undefined, windowMs: number): readonly bigint[];
  /** The keys `${group}\u0001${member}` recorded in a group (e.g. every validator one delegator delegated to). */
  keys(group: string): string[];
  forget(key: string): void;
}

/** Bounds: beyond them the oldest series / runs go (a series changing every evaluation for a day). */
export const MAX_DURABLE_SERIES = 50_000;
export const MAX_DURABLE_RUNS = 500;

const groupOf = (key: string): string | undefined => {
  const at = key.lastIndexOf('\u0001');
  return at < 0 ? undefined : key.slice(0, at);
};

export class DurableRanges {
  private readonly series = new Map<string, Series>();
  /** Keys by group (the part before the last \u0001), so a group's keys are found without a scan. */
  private readonly groups = new Map<string, Set<string>>();
  /** Something a restart must know changed since the last save (a new run, a run dropped). */
  changed = false;
  /** A run's last time moved since the last save (saved now and then, not at every evaluation). */
  touched = false;

  read(key: string, value: bigint | undefined, windowMs: number, now: number): bigint[] {
    let s = this.series.get(key);
    if (!s && value === undefined) return [];
    if (!s) {
      if (this.series.size >= MAX_DURABLE_SERIES) this.delete(this.series.keys().next().value!);
      s = this.add(key, { windowMs, runs: [] });
    }
    s.windowMs = windowMs;
    if (value !== undefined) {
      const tail = s.runs[s.runs.length - 1];
      if (tail && tail.v === value) {
        if (tail.to !== now) this.touched = true;
        tail.to = Math.max(tail.to, now);
      } else {
        s.runs.push({ v: value, from: now, to: now });
        if (s.runs.length > MAX_DURABLE_RUNS) s.runs.shift();
        this.changed = true;
      }
    }
    this.prune(s, now);
    return s.runs.map((r) => r.v);
  }

  private prune(s: Series, now: number): void {
    let drop = 0;
    while (drop < s.runs.length && s.runs[drop]!.to < now - s.windowMs) drop++;
    if (drop === 0) return;
    s.runs.splice(0, drop);
    this.changed = true;
  }

  private add(key: string, s: Series): Series {
    this.series.set(key, s);
    const g = groupOf(key);
    if (g !== undefined) {
      let set = this.groups.get(g);
      if (!set) this.groups.set(g, (set = new Set()));
      set.add(key);
    }
    return s;
  }

  private delete(key: string): boolean {
    const g = groupOf(key);
    if (g !== undefined) {
      const set = this.groups.get(g);
      set?.delete(key);
      if (set?.size === 0) this.groups.delete(g);
    }
    return this.series.delete(key);
  }

  keys(group: string): string[] {
    return [...(this.groups.get(group) ?? [])];
  }

  forget(key: string): void {
    if (this.delete(key)) this.changed = true;
  }

  /** Drops series with nothing left in their window (entries removed, memories expired). */
  sweep(now: number): void {
    for (const [key, s] of this.series) {
      this.prune(s, now);
      if (s.runs.length === 0) {
        this.delete(key);
        this.changed = true;
      }
    }
  }

  /** Every series, times mapped (to wall time for the file). */
  export(time: (t: number) => number): Record<string, { windowMs: number; runs: Array<[string, number, number]> }> {
    const out: Record<string, { windowMs: number; runs: Array<[string, number, number]> }> = {};
    for (const [key, s] of this.series)
      out[key] = { windowMs: s.windowMs, runs: s.runs.map((r) => [r.v.toString(), time(r.from), time(r.to)]) };
    return out;
  }

  /** Replaces what is held with saved series, times mapped back (to monotonic time). */
  import(
    saved: Readonly<Record<string, { windowMs: number; runs: ReadonlyArray<readonly [string, number, number]> }>>,
    time: (t: number) => number,
  ): void {
    this.series.clear();
    this.groups.clear();
    for (const [key, s] of Object.entries(saved).slice(0, MAX_DURABLE_SERIES))
      this.add(key, {
        windowMs: s.windowMs,
        runs: s.runs
          .slice(-MAX_DURABLE_RUNS)
          .map(([v, from, to]) => ({ v: BigInt(v), from: time(from), to: time(to) })),
      });
    this.changed = false;
    this.touched = false;
  }

  get size(): number {
    return this.series.size;
  }
}
