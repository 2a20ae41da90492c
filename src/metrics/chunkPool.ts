// Fixed-size chunks a streamed /metrics body is written into, kept between scrapes and reused:
// written memory costs no page faults (fresh memory for a 10,000-node body: ~270 ms more CPU
// per render), and a body streamed through a few chunks keeps a few MB instead of a whole body
// (51 MB at 10,000 nodes). A chunk is lent to one writer and comes back once nothing reads it
// (sent to the socket, or compressed). A chunk taken while every kept one is out is a fresh one,
// dropped when it comes back: a slow client holds its chunks, never the pool.
import { GZIP_PIECE_BYTES } from './gzip.js';

/** One chunk: the size of a gzip piece, so each full chunk is compressed as one piece. */
export const CHUNK_BYTES = GZIP_PIECE_BYTES;

/**
 * Chunks kept beyond those the largest step fills: the thread pool's four compressions and the
 * chunk being written. A step (one of our per-node families: 5.4 MB at 10,000 nodes) is written
 * whole, so the pool grows with the largest one, up to MAX_KEPT_CHUNKS.
 */
export const SPARE_CHUNKS = 5;
export const MAX_KEPT_CHUNKS = 16;

export class ChunkPool {
  private readonly free: Buffer[] = [];
  private readonly kept = new WeakSet<Buffer>();
  private owned = 0;
  private waiting: Array<() => void> = [];
  /** Chunks handed out beyond the pool (every kept one was out), dropped when they came back. */
  freshTaken = 0;

  /** Chunks kept at most (see fit). */
  keep: number;
  /** Bytes of the largest step of the last render (see fit). */
  largestStep = 0;

  constructor(
    readonly chunkBytes = CHUNK_BYTES,
    private readonly maxKeep = MAX_KEPT_CHUNKS,
  ) {
    this.keep = Math.min(SPARE_CHUNKS + 1, maxKeep);
  }

  /**
   * Sizes the pool for renders whose largest step writes `bytes` and whose body is `bodyBytes`:
   * the next ones are alike. Never more chunks than the body fills (a 1,000-node body is 3 of
   * them: six would keep twice the body).
   */
  fit(bytes: number, bodyBytes = Infinity): void {
    this.largestStep = bytes;
    const body = Math.max(1, Math.ceil(bodyBytes / this.chunkBytes));
    this.keep = Math.min(Math.ceil(bytes / this.chunkBytes) + SPARE_CHUNKS, this.maxKeep, body);
  }

  /** Free chunks a writer should have before its next step: enough for the largest one. */
  get wanted(): number {
    return Math.min(Math.ceil(this.largestStep / this.chunkBytes) + 1, this.keep);
  }

  /** A chunk now, never waiting: a free kept one, a new kept one while fewer than `keep` exist, else a fresh one. */
  take(): Buffer {
    const free = this.free.pop();
    if (free) return free;
    const chunk = Buffer.allocUnsafeSlow(this.chunkBytes);
    if (this.owned < this.keep) {
      this.owned++;
      this.kept.add(chunk);
    } else this.freshTaken++;
    return chunk;
  }

  /** `chunk` is read by nobody any more: kept for the next writer if it is one of ours. */
  give(chunk: Buffer): void {
    if (this.kept.has(chunk)) {
      // A pool fitted smaller drops the chunks it no longer keeps as they come back.
      if (this.owned > this.keep) {
        this.kept.delete(chunk);
        this.owned--;
      } else this.free.push(chunk);
    }
    const waiting = this.waiting;
    this.waiting = [];
    for (const wake of waiting) wake();
  }

  /** Chunks take() can hand out without allocating beyond the pool. */
  get available(): number {
    return this.free.length + Math.max(0, this.keep - this.owned);
  }

  /** Kept chunks, free or lent (never more than `keep`). */
  get size(): number {
    return this.owned;
  }

  /** Settles at the next give(). */
  returned(): Promise<void> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }
}
