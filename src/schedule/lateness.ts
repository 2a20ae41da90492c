// Poll lateness (actual minus scheduled start of a tick), kept as a bounded window of recent
// values so a long-running daemon holds a fixed amount of memory for it.

export interface LatenessSummary {
  /** Ticks recorded since start (not only the window). */
  count: number;
  p50Ms: number;
  p99Ms: number;
  /** Largest lateness since start. */
  maxMs: number;
}

export class LatenessWindow {
  private readonly values: Float64Array;
  private next = 0;
  private filled = 0;
  private total = 0;
  private max = 0;

  constructor(size = 16_384) {
    this.values = new Float64Array(Math.max(1, size));
  }

  record(ms: number): void {
    const v = Math.max(0, ms);
    this.values[this.next] = v;
    this.next = (this.next + 1) % this.values.length;
    this.filled = Math.min(this.filled + 1, this.values.length);
    this.total++;
    if (v > this.max) this.max = v;
  }

  /** Forgets everything (e.g. after a warm-up, so a summary covers the steady state). */
  reset(): void {
    this.next = 0;
    this.filled = 0;
    this.total = 0;
    this.max = 0;
  }

  summary(): LatenessSummary {
    const sorted = this.values.slice(0, this.filled).sort();
    const at = (q: number) =>
      sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
    return { count: this.total, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: this.max };
  }
}
