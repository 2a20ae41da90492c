// gzip for /metrics bodies: one gzip member (what every client reads) whose deflate stream is
// made of pieces compressed at once on the thread pool, as pigz does. Each piece ends with a sync
// flush (byte-aligned, not final) and an empty final block closes the stream, so the pieces join
// into one valid stream; the CRC is computed here as pieces arrive. The render hands pieces over
// while it is still writing the rest of the body (see ByteWriter's sink): a 10,000-node body is
// ~50 MB, and its compression runs on the other cores during the render instead of after it.
// A piece's compressed form stands anywhere in such a stream, so one kept from an earlier scrape
// is spliced in as it is (addCompressed; keptCompression.ts).
import { promisify } from 'node:util';
import { constants, crc32, deflateRaw, type ZlibOptions } from 'node:zlib';

const deflateRawAsync = promisify(deflateRaw) as (data: Buffer, opts: ZlibOptions) => Promise<Buffer>;

/** Bytes per piece: a fraction of a large body each, and one piece for a small body. */
export const GZIP_PIECE_BYTES = 2 * 1024 * 1024;

// Level 1: a 1,000-node /metrics (4.9 MB) compresses in 14 ms of CPU instead of 50 ms (level 6),
// to 0.38 MB instead of 0.31 MB. Every Prometheus scrape pays it; a few more bytes on a local
// network are cheaper than the CPU.
const LEVEL = 1;

/**
 * Output memory per piece. zlib stops each time its output buffer is full and waits for the main
 * thread to hand it the next one, which a busy event loop (or a render in progress) delays: one
 * buffer that holds a piece's whole output (~1/15 of it for exposition text at level 1) lets the
 * thread pool finish the piece alone. 55 MB compressed with 16 KB buffers under a busy loop took
 * ~340 ms, with 256 KB ~190 ms.
 */
const outputBytes = (piece: number) => Math.max(16 * 1024, Math.min(256 * 1024, piece >> 3));

/** RFC 1952 header: deflate, no flags, no time, fastest compression (XFL 4), unknown OS. */
const HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 255]);

/**
 * A gzip member built from consecutive pieces of a body. Each piece goes to the thread pool as
 * soon as it is added (its memory must stay unchanged until finish() settles); finish() closes
 * the stream and joins the compressed pieces. Every piece is queued at once: libuv's four threads
 * take them in turn, so a file write waits behind at most one scrape's pieces (tens of ms).
 */
export class GzipPieces {
  private crc = 0;
  private bytes = 0;
  private finished = false;
  private readonly deflated: Array<Promise<Buffer>> = [];

  /** Resolves to the piece's compressed form: one that may stand anywhere in a stream of pieces. */
  add(piece: Buffer): Promise<Buffer> {
    if (this.finished) throw new Error('gzip member already finished');
    return piece.length > 0 ? this.submit(piece, constants.Z_SYNC_FLUSH) : Promise.resolve(Buffer.alloc(0));
  }

  /** A piece compressed before: `compressed` is what add() gave for the same bytes. */
  addCompressed(piece: Buffer, compressed: Buffer): void {
    if (this.finished) throw new Error('gzip member already finished');
    this.count(piece);
    this.deflated.push(Promise.resolve(compressed));
  }

  async finish(): Promise<Buffer> {
    this.finished = true;
    this.submit(Buffer.alloc(0), constants.Z_FINISH);
    const parts = await Promise.all(this.deflated);
    const trailer = Buffer.allocUnsafe(8);
    trailer.writeUInt32LE(this.crc >>> 0, 0);
    trailer.writeUInt32LE(this.bytes % 2 ** 32, 4);
    return Buffer.concat([HEADER, ...parts, trailer]);
  }

  private count(piece: Buffer): void {
    // (Node's crc32 of an empty buffer that zlib has read returns 0, not the running value.)
    if (piece.length > 0) this.crc = crc32(piece, this.crc);
    this.bytes += piece.length;
  }

  private submit(piece: Buffer, flush: number): Promise<Buffer> {
    this.count(piece);
    const p = deflateRawAsync(piece, { level: LEVEL, finishFlush: flush, chunkSize: outputBytes(piece.length) });
    p.catch(() => undefined); // awaited by finish(); a failure meanwhile is not unhandled
    this.deflated.push(p);
    return p;
  }
}
