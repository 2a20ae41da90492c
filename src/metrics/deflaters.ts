// Raw deflate of independent pieces (each ends in a sync flush and refers to nothing before it).
// Small pieces go to a few deflate streams kept for the process's life and reset between pieces:
// a new zlib stream per piece (zlib.deflateRaw) cost ~1 ms of CPU besides the bytes, for its
// state's memory and set-up (306 pieces of 64 KB: 334 ms of CPU that way, 75 ms on one kept
// stream), and a scrape hands over a few dozen pieces (kept blocks split the body). Large pieces
// get a stream of their own (see OWN_STREAM_BYTES).
import { availableParallelism } from 'node:os';
import { promisify } from 'node:util';
import { constants, createDeflateRaw, deflateRaw, type DeflateRaw, type ZlibOptions } from 'node:zlib';

const deflateRawAsync = promisify(deflateRaw) as (data: Buffer, opts: ZlibOptions) => Promise<Buffer>;

/**
 * Pieces from this size on get a zlib stream of their own. A kept stream takes its next piece only
 * once the main thread has seen the last one done, which a busy event loop delays: at 10,000 nodes
 * / 15 s, with every piece on kept streams, whole scrapes took 235 ms (p50) and up to 448 ms
 * against 192 and 321 ms with a stream per piece (alternating, same minutes). For a piece this
 * large the ~1 ms of a new stream is a small part of its cost; for small ones it is most of it.
 */
const OWN_STREAM_BYTES = 512 * 1024;

// Level 1: a 1,000-node /metrics (4.9 MB) compresses in 14 ms of CPU instead of 50 ms (level 6),
// to 0.38 MB instead of 0.31 MB. Every Prometheus scrape pays it; a few more bytes on a local
// network are cheaper than the CPU.
const LEVEL = 1;

interface Job {
  piece: Buffer;
  resolve(compressed: Buffer): void;
  reject(err: Error): void;
}

/**
 * Output memory per write: one buffer that holds a piece's whole output (~1/15 of it for
 * exposition text at level 1) lets the thread pool finish the piece without waiting for the busy
 * main thread to take each output chunk: 55 MB compressed with 16 KB buffers under a busy loop
 * took ~340 ms, with 256 KB ~190 ms.
 */
const OUTPUT_BYTES = 256 * 1024;

/**
 * A kept stream's output memory, held for the process's life: its pieces (under OWN_STREAM_BYTES) compress to ~35 KB or
 * less; more takes a second buffer.
 */
const KEPT_OUTPUT_BYTES = 64 * 1024;

/** One kept stream: its pieces one after another, each from a reset state. */
class Deflater {
  private stream: DeflateRaw;
  private readonly jobs: Job[] = [];
  private out: Buffer[] = [];
  private running = false;
  /** Bytes queued or in progress here. */
  load = 0;

  constructor() {
    this.stream = this.open();
  }

  run(piece: Buffer): Promise<Buffer> {
    this.load += piece.length;
    const done = new Promise<Buffer>((resolve, reject) => this.jobs.push({ piece, resolve, reject }));
    this.next();
    return done;
  }

  private open(): DeflateRaw {
    // Every write ends in a sync flush: byte-aligned, not final.
    const stream = createDeflateRaw({ level: LEVEL, flush: constants.Z_SYNC_FLUSH, chunkSize: KEPT_OUTPUT_BYTES });
    stream.on('data', (chunk: Buffer) => this.out.push(chunk));
    return stream;
  }

  private next(): void {
    if (this.running) return;
    const job = this.jobs.shift();
    if (!job) return;
    this.running = true;
    const stream = this.stream;
    let settled = false;
    const settle = (err: Error | null | undefined) => {
      if (settled) return;
      settled = true;
      stream.off('error', settle);
      const out = this.out;
      this.out = [];
      this.running = false;
      this.load -= job.piece.length;
      if (err) {
        // A stream that failed is not reused: the next piece gets a new one.
        stream.destroy();
        this.stream = this.open();
        job.reject(err);
      } else {
        // The next piece must not refer to this one's bytes (it may land anywhere in a body).
        stream.reset();
        job.resolve(out.length === 1 ? out[0]! : Buffer.concat(out));
      }
      this.next();
    };
    stream.on('error', settle);
    stream.write(job.piece, settle);
  }
}

/** As many kept streams as cores, up to libuv's four threads (the rest stay free for file I/O). */
const pool: Deflater[] = [];

/**
 * The compressed form of `piece`: a byte-aligned, not final run of deflate blocks that stands anywhere in a raw deflate
 * stream.
 */
export function deflatePiece(piece: Buffer): Promise<Buffer> {
  if (piece.length >= OWN_STREAM_BYTES)
    return deflateRawAsync(piece, { level: LEVEL, finishFlush: constants.Z_SYNC_FLUSH, chunkSize: OUTPUT_BYTES });
  if (pool.length === 0)
    for (let i = 0; i < Math.min(4, Math.max(1, availableParallelism())); i++) pool.push(new Deflater());
  let least = pool[0]!;
  for (const d of pool) if (d.load < least.load) least = d;
  return least.run(piece);
}
