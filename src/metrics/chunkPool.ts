// Fixed-size chunks a streamed /metrics body is written into, kept between scrapes and reused:
// written memory costs no page faults (fresh memory for a 10,000-node body: ~270 ms more CPU
// per render), and a body streamed through a few chunks keeps a few MB instead of a whole body
// (51 MB at 10,000 nodes). A chunk is lent to one writer and comes back once nothing reads it
// (sent to the socket, or compressed). A chunk taken while every kept one is out is a fresh one;
// the pool keeps at most `keep` free chunks, so what a slow client holds is dropped once it
// comes back, and no client holds the pool.
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
  /** Chunks out with writers and their readers. */
  private lent = 0;
  private waiting: Array<() => void> = [];
  /** Chunks allocated while `keep` were already out or free (fresh memory a slow reader made us take). */
  freshTaken = 0;
  /** Chunks kept at most, free and lent (see fit). */
  keep: number;
  /** Bytes of the largest step of the last render (see fit). */
  largestStep = 0;

  constructor(
    readonly chunkBytes = CHUNK_BYTES,
    private readonly maxKeep = MAX_KEPT_CHUNKS,
  ) {
    this.keep = Math.min(SPARE_CHUNKS + 1, maxKeep);
  }

  /** Sizes the pool for renders whose largest step writes `bytes`: the next ones are alike. */
  fit(bytes: number): void {
    this.largestStep = bytes;
    this.keep = Math.min(Math.ceil(bytes / this.chunkBytes) + SPARE_CHUNKS, this.maxKeep);
    while (this.free.length > this.keep) this.free.pop();
  }

  /** Free chunks a writer should have before its next step: enough for the largest one. */
  get wanted(): number {
    return Math.min(Math.ceil(this.largestStep / this.chunkBytes) + 1, this.keep);
  }

  /** A chunk now, never waiting: a free one, else a new one (fresh when `keep` are out or free already). */
  take(): Buffer {
    this.lent++;
    const free = this.free.pop();
    if (free) return free;
    if (this.lent > this.keep) this.freshTaken++;
    return Buffer.allocUnsafeSlow(this.chunkBytes);
  }

  /** `chunk` is read by nobody any more: kept for the next writer while fewer than `keep` are free. */
  give(chunk: Buffer): void {
    this.lent--;
    if (this.free.length < this.keep) this.free.push(chunk);
    const waiting = this.waiting;
    this.waiting = [];
    for (const wake of waiting) wake();
  }

  /** Chunks take() can hand out without going past `keep` chunks in all. */
  get available(): number {
    return this.free.length + Math.max(0, this.keep - this.lent - this.free.length);
  }

  /** Free chunks kept (never more than `keep`). */
  get size(): number {
    return this.free.length;
  }

  /** Settles at the next give(). */
  returned(): Promise<void> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }
}
