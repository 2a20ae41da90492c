// In-flight bounds of the fan-out reads: at most `perKey` per node and `total` in all, waiting in
// the order asked. Apart from the scheduler's bound, so fan-out reads never hold a poll's place.
export class Slots {
  private total = 0;
  private readonly perKeyNow = new Map<string, number>();
  private readonly waiting: Array<{ key: string; go: () => void }> = [];
  /** The most calls seen in flight for one key (diagnostics, tests). */
  maxPerKey = 0;

  constructor(
    private readonly perKey: number,
    private readonly limit: number,
  ) {}

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    // A waiter's place is taken for it by the call that frees it (nothing can take it in between).
    if (this.free(key)) this.take(key);
    else await new Promise<void>((go) => this.waiting.push({ key, go }));
    try {
      return await fn();
    } finally {
      this.give(key);
    }
  }

  private free(key: string): boolean {
    return this.total < this.limit && (this.perKeyNow.get(key) ?? 0) < this.perKey;
  }

  private take(key: string): void {
    this.total++;
    const n = (this.perKeyNow.get(key) ?? 0) + 1;
    this.perKeyNow.set(key, n);
    if (n > this.maxPerKey) this.maxPerKey = n;
  }

  private give(key: string): void {
    this.total--;
    const n = this.perKeyNow.get(key)! - 1;
    if (n === 0) this.perKeyNow.delete(key);
    else this.perKeyNow.set(key, n);
    // The first waiter that may go now (a waiter for a busy node lets others pass).
    const i = this.waiting.findIndex((w) => this.free(w.key));
    if (i < 0) return;
    const w = this.waiting.splice(i, 1)[0]!;
    this.take(w.key);
    w.go();
  }
}
