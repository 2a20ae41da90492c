// The real node serves at most 100 requests at once (a concurrency limit in front of its
// router): further requests wait for a free slot. A slot is held until the response closes.
import type http from 'node:http';

export const MAX_CONCURRENT_REQUESTS = 100;

export class ConcurrencyGate {
  private running = 0;
  private peak = 0;
  private readonly waiting: Array<{ res: http.ServerResponse; run: () => void }> = [];

  constructor(private readonly limit = MAX_CONCURRENT_REQUESTS) {}

  get inFlight(): number {
    return this.running;
  }

  /** The most requests served at once since the last reset. */
  get peakInFlight(): number {
    return this.peak;
  }

  resetPeak(): void {
    this.peak = this.running;
  }

  /** Runs `run` now or once a slot frees; the slot is given back when `res` closes. */
  admit(res: http.ServerResponse, run: () => void): void {
    if (this.running >= this.limit) {
      const w = { res, run };
      this.waiting.push(w);
      // A client that gives up while waiting takes no slot.
      res.once('close', () => {
        const i = this.waiting.indexOf(w);
        if (i >= 0) this.waiting.splice(i, 1);
      });
      return;
    }
    this.start(res, run);
  }

  private start(res: http.ServerResponse, run: () => void): void {
    this.running++;
    if (this.running > this.peak) this.peak = this.running;
    res.once('close', () => {
      this.running--;
      this.next();
    });
    run();
  }

  private next(): void {
    while (this.waiting.length > 0 && this.running < this.limit) {
      const w = this.waiting.shift()!;
      this.start(w.res, w.run);
    }
  }
}
