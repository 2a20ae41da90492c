// Writes an exposition into chunks of a ChunkPool and hands each run of final bytes to a sink as
// it is done (a full chunk; with compression, also the bytes before and of a block), so a body
// goes out while the rest is written. Bytes are copied into a chunk synchronously: what the
// caller passes may change as soon as the call returns.
import { GatheredText, type TakenPiece, type TextOut } from './byteWriter.js';
import type { ChunkPool } from './chunkPool.js';
import { crc32Combine } from './crc32Combine.js';

/**
 * How long, in all, a render may wait for its client to take the chunks it holds before it takes
 * fresh ones. The render lets the scrapes queued behind it run while it waits (onClientWait), so
 * this only bounds how long a stalled client keeps a paused render. Fresh memory for every chunk of
 * a 10,000-node plain body (a reader slower than the render) cost a plain scrape 2-3x the CPU in a
 * fleet: external memory growing by tens of MB starts full collections of the whole heap.
 */
export const CLIENT_WAIT_MS = 10_000;

const utf8 = new TextEncoder();

/** Where the written bytes go. */
export interface ChunkSink {
  /**
   * Final bytes, a view of a lent chunk: `done()` once nothing reads them. A compressing sink
   * returns what it made of them (for kept compression).
   */
  take(bytes: Buffer, done: () => void): TakenPiece<Promise<Buffer>> | void;
  /** A block compressed by an earlier scrape, in place of its bytes (compressing sinks only). */
  takeCompressed?(piece: TakenPiece): void;
}

export class ChunkWriter extends GatheredText implements TextOut {
  private buf: Buffer;
  private len = 0;
  /** Bytes of `buf` before this offset were handed to the sink. */
  private from = 0;
  private ended = false;
  /** Per lent chunk: views the sink holds, plus one while this writer writes into it. */
  private readonly refs = new Map<Buffer, number>();
  /** Inside writeBlock: what the sink made of the block's bytes so far. */
  private block: Array<TakenPiece<Promise<Buffer>>> | undefined;
  /** Chunks filled and left for the next one: 0 while the whole body is in the first chunk. */
  spilled = 0;
  /** Bytes written, and where the current step began. */
  private written = 0;
  private stepFrom = 0;
  private largestStep = 0;
  /** Bytes of the blocks given compressed (not written again). */
  reusedBytes = 0;
  /** What is left of CLIENT_WAIT_MS for this body. */
  private clientWaitLeft: number;

  constructor(
    private readonly pool: ChunkPool,
    private readonly sink: ChunkSink,
    readonly compressing: boolean,
    /** Called before the render waits for its client: nothing else of the scrape path is used while it waits. */
    private readonly onClientWait: () => void = () => undefined,
    clientWaitMs = CLIENT_WAIT_MS,
  ) {
    super();
    this.clientWaitLeft = clientWaitMs;
    this.buf = this.lend();
  }

  writeRange(b: Buffer, start: number, end: number): void {
    this.flush();
    this.copyIn(b, start, end);
  }

  /** As ByteWriter.writeBlock: the block's bytes are handed apart from their neighbours' (they may span chunks). */
  writeBlock(fill: () => void, kept?: TakenPiece, keep?: (piece: TakenPiece<Promise<Buffer>>) => void): void {
    if (!this.compressing || this.block) return fill();
    this.flush();
    this.hand();
    if (kept) {
      this.sink.takeCompressed!(kept);
      this.reusedBytes += kept.length;
      return;
    }
    const pieces: Array<TakenPiece<Promise<Buffer>>> = [];
    this.block = pieces;
    try {
      fill();
      this.flush();
      this.hand();
    } finally {
      this.block = undefined;
    }
    if (pieces.length > 0) keep?.(joined(pieces));
  }

  /**
   * Before the next step: settles once enough chunks are free. Compression is waited for (it ends
   * on its own); the client for CLIENT_WAIT_MS in all, then the loop is let run once, so that
   * writes the kernel took give theirs back, and fresh chunks are taken after that.
   */
  room(): Promise<void> | undefined {
    this.stepEnds();
    return this.wait();
  }

  private stepEnds(): void {
    this.largestStep = Math.max(this.largestStep, this.written - this.stepFrom);
    this.stepFrom = this.written;
  }

  private wait(): Promise<void> | undefined {
    if (this.pool.available >= this.pool.wanted || this.refs.size <= 1) return undefined;
    if (this.compressing) return this.pool.returned().then(() => this.wait());
    if (this.clientWaitLeft <= 0) return new Promise((resolve) => setImmediate(resolve));
    this.onClientWait();
    const started = performance.now();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.clientWaitLeft);
      void this.pool.returned().then(() => {
        clearTimeout(timer);
        resolve();
      });
    }).then(() => {
      this.clientWaitLeft -= performance.now() - started;
      return this.wait();
    });
  }

  /** The end of the body: every byte goes to the sink (once; a later call does nothing). */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.flush();
    this.hand();
    this.unref(this.buf);
    this.stepEnds();
    this.pool.fit(this.largestStep, this.written);
  }

  protected encode(s: string): void {
    // UTF-8 needs at most 3 bytes per UTF-16 code unit.
    if (s.length * 3 <= this.buf.length - this.len) {
      const n = this.buf.write(s, this.len, 'utf8');
      this.len += n;
      this.written += n;
      return;
    }
    // Perhaps larger than the room left (the exporter's own families, ~1 MB at 10,000 nodes):
    // encoded into one chunk after another, not into a Buffer of its own first. A character
    // that does not fit in what is left of a chunk starts the next one.
    let rest = s;
    for (;;) {
      const { read, written } = utf8.encodeInto(rest, this.buf.subarray(this.len));
      this.len += written;
      this.written += written;
      if (read === rest.length) return;
      rest = rest.slice(read);
      this.next();
    }
  }

  private copyIn(b: Buffer, start: number, end: number): void {
    while (start < end) {
      if (this.len === this.buf.length) this.next();
      const n = Math.min(this.buf.length - this.len, end - start);
      b.copy(this.buf, this.len, start, start + n);
      this.len += n;
      this.written += n;
      start += n;
    }
  }

  /** The chunk is full: its bytes go out and writing goes on in another. */
  private next(): void {
    this.hand();
    this.unref(this.buf);
    this.buf = this.lend();
    this.len = 0;
    this.from = 0;
    this.spilled++;
  }

  private hand(): void {
    if (this.len === this.from) return;
    const chunk = this.buf;
    const bytes = chunk.subarray(this.from, this.len);
    this.from = this.len;
    this.refs.set(chunk, this.refs.get(chunk)! + 1);
    let done = false;
    const piece = this.sink.take(bytes, () => {
      // Once only: a second call would give back a chunk another writer holds.
      if (done) return;
      done = true;
      this.unref(chunk);
    });
    if (piece && this.block) this.block.push(piece);
  }

  private lend(): Buffer {
    const chunk = this.pool.take();
    this.refs.set(chunk, 1);
    return chunk;
  }

  private unref(chunk: Buffer): void {
    const n = this.refs.get(chunk)! - 1;
    if (n > 0) {
      this.refs.set(chunk, n);
      return;
    }
    this.refs.delete(chunk);
    this.pool.give(chunk);
  }
}

/** One block's pieces as one: CRCs joined, compressed forms concatenated (each stands anywhere in a stream). */
function joined(pieces: Array<TakenPiece<Promise<Buffer>>>): TakenPiece<Promise<Buffer>> {
  if (pieces.length === 1) return pieces[0]!;
  let crc = 0;
  let length = 0;
  for (const p of pieces) {
    crc = crc32Combine(crc, p.crc, p.length);
    length += p.length;
  }
  const compressed = Promise.all(pieces.map((p) => p.compressed)).then((parts) => Buffer.concat(parts));
  compressed.catch(() => undefined); // the pieces' own failures are reported by the stream
  return { crc, length, compressed };
}
