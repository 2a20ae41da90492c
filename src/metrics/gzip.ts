// gzip for /metrics bodies: one gzip member (what every client reads) whose deflate stream is
// made of pieces compressed on the thread pool as they come, as pigz does. Each piece ends with a sync
// flush (byte-aligned, not final) and an empty final block closes the stream, so the pieces join
// into one valid stream; the CRC is computed here as pieces arrive. The render hands pieces over
// while it is still writing the rest of the body (see ByteWriter's sink): a 10,000-node body is
// ~50 MB, and its compression runs on the other cores during the render instead of after it.
// A piece's compressed form stands anywhere in such a stream, so one kept from an earlier scrape
// is spliced in as it is (addCompressed; keptCompression.ts).
import { crc32 } from 'node:zlib';
import type { TakenPiece } from './byteWriter.js';
import { crc32Combine } from './crc32Combine.js';
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
 * the stream and joins the compressed pieces. Small pieces go to kept deflate streams, large ones
 * to the thread pool at once (deflaters.ts): libuv's four threads take them in turn, so a file
 * write waits behind at most one scrape's pieces (tens of ms).
 */
export class GzipPieces {
  private crc = 0;
  private bytes = 0;
  private finished = false;
  private readonly deflated: Array<Promise<Buffer>> = [];

  /** Queues `piece` for compression; its compressed form may stand anywhere in a stream of pieces. */
  add(piece: Buffer): TakenPiece<Promise<Buffer>> {
    if (this.finished) throw new Error('gzip member already finished');
    const crc = crc32(piece);
    const compressed = piece.length > 0 ? deflatePiece(piece) : Promise.resolve(Buffer.alloc(0));
    compressed.catch(() => undefined); // awaited by finish(); a failure meanwhile is not unhandled
    this.append(crc, piece.length, compressed);
    return { crc, length: piece.length, compressed };
  }

  /** A piece compressed before (what add() gave for the same bytes): its bytes are not needed again. */
  addCompressed(piece: TakenPiece): void {
    if (this.finished) throw new Error('gzip member already finished');
    this.append(piece.crc, piece.length, Promise.resolve(piece.compressed));
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

  private append(crc: number, length: number, compressed: Promise<Buffer>): void {
    this.crc = crc32Combine(this.crc, crc, length);
    this.bytes += length;
    this.deflated.push(compressed);
  }
}

/**
 * A gzip member sent as it is made: `emit` gets the header at once, then each piece's compressed
 * form in the body's order as soon as it and every piece before it are compressed, then the end.
 * A piece's bytes are read until its compression settles (then `done` is called).
 */
export class GzipStream {
  private crc = 0;
  private bytes = 0;
  /** Settles once every piece so far was emitted; rejects with the first failure. */
  private tail: Promise<void> = Promise.resolve();

  constructor(private readonly emit: (bytes: Buffer) => void) {
    emit(HEADER);
  }

  take(piece: Buffer, done: () => void): TakenPiece<Promise<Buffer>> {
    const crc = crc32(piece);
    const compressed = deflatePiece(piece);
    compressed.then(done, done);
    this.append(crc, piece.length, compressed);
    return { crc, length: piece.length, compressed };
  }

  takeCompressed(piece: TakenPiece): void {
    this.append(piece.crc, piece.length, Promise.resolve(piece.compressed));
  }

  /** Emits the final block and the trailer after every piece; rejects if a piece failed (nothing more is emitted). */
  async finish(): Promise<void> {
    await this.tail;
    const trailer = Buffer.allocUnsafe(8);
    trailer.writeUInt32LE(this.crc >>> 0, 0);
    trailer.writeUInt32LE(this.bytes % 2 ** 32, 4);
    this.emit(FINAL_BLOCK);
    this.emit(trailer);
  }

  private append(crc: number, length: number, compressed: Promise<Buffer>): void {
    this.crc = crc32Combine(this.crc, crc, length);
    this.bytes += length;
    const before = this.tail;
    this.tail = before.then(() => compressed).then((z) => this.emit(z));
    this.tail.catch(() => undefined); // reported by finish()
  }
}
