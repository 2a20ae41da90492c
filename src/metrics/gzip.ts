// gzip for /metrics bodies: one gzip member (what every client reads) whose deflate stream is
// made of pieces compressed on the thread pool as they come, as pigz does. Each piece ends with a sync
// flush (byte-aligned, not final) and an empty final block closes the stream, so the pieces join
// into one valid stream; the CRC is computed here as pieces arrive. The render hands pieces over
// while it is still writing the rest of the body (see ByteWriter's sink): a 10,000-node body is
// ~50 MB, and its compression runs on the other cores during the render instead of after it.
// A piece's compressed form stands anywhere in such a stream, so one kept from an earlier scrape
// is spliced in as it is (addCompressed; keptCompression.ts).
import { crc32 } from 'node:zlib';
import { deflatePiece } from './deflaters.js';

/** Bytes per piece: a fraction of a large body each, and one piece for a small body. */
export const GZIP_PIECE_BYTES = 2 * 1024 * 1024;

/** The final block that closes a raw deflate stream: fixed Huffman codes, end of block only (RFC 1951, 3.2.6). */
const FINAL_BLOCK = Buffer.from([0x03, 0x00]);

/** RFC 1952 header: deflate, no flags, no time, fastest compression (XFL 4), unknown OS. */
const HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 255]);

/**
 * A gzip member built from consecutive pieces of a body. Each piece is queued for compression as
 * soon as it is added (its memory must stay unchanged until finish() settles); finish() closes
 * the stream and joins the compressed pieces. The pieces go to as many kept deflate streams as
 * there are cores, at most four (deflaters.ts), so file writes always find a libuv thread free.
 */
export class GzipPieces {
  private crc = 0;
  private bytes = 0;
  private finished = false;
  private readonly deflated: Array<Promise<Buffer>> = [];

  /** Resolves to the piece's compressed form: one that may stand anywhere in a stream of pieces. */
  add(piece: Buffer): Promise<Buffer> {
    if (this.finished) throw new Error('gzip member already finished');
    return piece.length > 0 ? this.submit(piece) : Promise.resolve(Buffer.alloc(0));
  }

  /** A piece compressed before: `compressed` is what add() gave for the same bytes. */
  addCompressed(piece: Buffer, compressed: Buffer): void {
    if (this.finished) throw new Error('gzip member already finished');
    this.count(piece);
    this.deflated.push(Promise.resolve(compressed));
  }

  async finish(): Promise<Buffer> {
    this.finished = true;
    this.deflated.push(Promise.resolve(FINAL_BLOCK));
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

  private submit(piece: Buffer): Promise<Buffer> {
    this.count(piece);
    const p = deflatePiece(piece);
    p.catch(() => undefined); // awaited by finish(); a failure meanwhile is not unhandled
    this.deflated.push(p);
    return p;
  }
}
