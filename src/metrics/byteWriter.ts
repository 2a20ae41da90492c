// An append-only UTF-8 buffer. A 1,000-node exposition is megabytes: written into one Buffer
// (outside the V8 heap), the small per-sample strings die young instead of being held in an
// array, then joined, then copied into a Buffer for the socket. Small pieces are gathered in a
// string first and encoded a few KB at a time: one Buffer.write per sample line cost ~1 us,
// most of a scrape.
const FLUSH_AT = 16 * 1024;

/** A run of bytes as a compressing sink took it: its CRC-32, length and compressed form. */
export interface TakenPiece<Z = Buffer> {
  crc: number;
  length: number;
  compressed: Z;
}

/** Takes the written bytes in consecutive pieces of at least `everyBytes` (or blocks) while writing goes on. */
export interface ByteSink {
  everyBytes: number;
  /** Bytes that are final: never written again (a view into the writer's memory, not a copy). */
  take(bytes: Buffer): TakenPiece<Promise<Buffer>>;
  /** A block taken before, whose bytes are not written again: what take() gave for them, compressed. */
  takeCompressed(piece: TakenPiece): void;
}

/** Where an exposition is written: one whole Buffer (ByteWriter) or pooled chunks streamed out (ChunkWriter). */
export interface TextOut {
  write(s: string): void;
  /** bytes[start, end): lines kept encoded; copied before the call returns. */
  writeRange(b: Buffer, start: number, end: number): void;
  /** Whether the written bytes go to a compressor (kept compression applies). */
  readonly compressing: boolean;
  /** See ByteWriter.writeBlock. */
  writeBlock(fill: () => void, kept?: TakenPiece, keep?: (piece: TakenPiece<Promise<Buffer>>) => void): void;
}

/**
 * Small pieces gathered in a string and encoded FLUSH_AT characters at a time (one Buffer.write per
 * sample line cost ~1 us); what the bytes are written into is the subclass's.
 */
export abstract class GatheredText {
  private pending = '';

  write(s: string): void {
    if (s.length >= FLUSH_AT) {
      this.flush();
      this.encode(s);
      return;
    }
    this.pending += s;
    if (this.pending.length >= FLUSH_AT) this.flush();
  }

  /** Encodes what was gathered. */
  protected flush(): void {
    if (this.pending === '') return;
    const s = this.pending;
    this.pending = '';
    this.encode(s);
  }

  protected abstract encode(s: string): void;
}

export class ByteWriter extends GatheredText implements TextOut {
  private buf: Buffer;
  private len = 0;
  /** Bytes before this offset were handed to the sink. */
  private taken = 0;
  /** Inside writeBlock: nothing is handed until the block ends. */
  private inBlock = false;
  /** Bytes of the blocks given compressed (see writeBlock): in the sink's output, not in bytes(). */
  reusedBytes = 0;

  /** `reuse`: memory of an earlier writer that nobody reads any more, written instead of new memory. */
  constructor(
    initialBytes = 64 * 1024,
    reuse?: Buffer,
    private readonly sink?: ByteSink,
  ) {
    super();
    this.buf = reuse ?? Buffer.allocUnsafe(Math.max(1024, initialBytes));
  }

  /** bytes[start, end): lines kept encoded (a family's lines of a run of nodes); ~0.5 us per call besides the copy. */
  writeRange(b: Buffer, start: number, end: number): void {
    if (end <= start) return;
    this.flush();
    if (this.len + end - start > this.buf.length) this.grow(this.len + end - start);
    this.len += b.copy(this.buf, this.len, start, end);
    if (this.sink && !this.inBlock && this.len - this.taken >= this.sink.everyBytes) this.hand();
  }

  /** Whether the written bytes go to a sink (a compressor) as well. */
  get compressing(): boolean {
    return this.sink !== undefined;
  }

  /**
   * Writes what `fill` writes as one piece of its own for the sink, so that its compressed form
   * can be kept (`keep` gets it). Given `kept` (what the sink took for the same bytes before),
   * the sink takes that instead and `fill` does not run: the block's bytes are then in the sink's
   * output only, not in bytes(). Without a sink, or inside another block (it is then part of that
   * one), only `fill` runs.
   */
  writeBlock(fill: () => void, kept?: TakenPiece, keep?: (piece: TakenPiece<Promise<Buffer>>) => void): void {
    const sink = this.sink;
    if (!sink || this.inBlock) return fill();
    this.handRest();
    if (kept) {
      sink.takeCompressed(kept);
      this.reusedBytes += kept.length;
      return;
    }
    this.inBlock = true;
    try {
      fill();
      this.flush();
    } finally {
      this.inBlock = false;
    }
    if (this.len === this.taken) return;
    const bytes = this.buf.subarray(this.taken, this.len);
    this.taken = this.len;
    const piece = sink.take(bytes);
    keep?.(piece);
  }

  /** Hands the sink every byte written so far that it has not had (the end of the writing). */
  handRest(): void {
    this.flush();
    if (this.sink && this.len > this.taken) this.hand();
  }

  get length(): number {
    this.flush();
    return this.len;
  }

  /** The bytes written so far (a view, not a copy). */
  bytes(): Buffer {
    this.flush();
    return this.buf.subarray(0, this.len);
  }

  /** The whole memory written into (bytes() is its start), for reuse once the bytes are done with. */
  storage(): Buffer {
    return this.buf;
  }

  protected encode(s: string): void {
    // UTF-8 needs at most 3 bytes per UTF-16 code unit.
    if (this.len + s.length * 3 > this.buf.length) this.grow(this.len + s.length * 3);
    this.len += this.buf.write(s, this.len, 'utf8');
    if (this.sink && !this.inBlock && this.len - this.taken >= this.sink.everyBytes) this.hand();
  }

  private hand(): void {
    // A view of memory this writer only appends to: a later grow() copies it and leaves it as is.
    void this.sink!.take(this.buf.subarray(this.taken, this.len));
    this.taken = this.len;
  }

  private grow(min: number): void {
    let size = this.buf.length * 2;
    while (size < min) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }
}
