// Compressed blocks of /metrics kept between gzip scrapes. Between two scrapes most of a fleet's
// per-node lines show the same values (failure counters, supported and success flags, info and up
// lines: ~58% of the bytes at 1,000 nodes / 15 s), and compressing them again is wasted work. A
// block (a family's lines) that did not change since the last gzip scrape is compressed apart
// from its neighbours and its compressed form kept; while its lines stay the same, later scrapes
// splice that form into the stream (gzip.ts) instead of writing and compressing the block again
// (its CRC is kept too, see crc32Combine.ts). A block that changes at every scrape is never
// compressed apart: it joins the neighbouring bytes.
import type { TakenPiece, TextOut } from './byteWriter.js';

interface Kept {
  /** The block's stamp when it was last written (see write). */
  stamp: number;
  /** Its compressed form, CRC and length, once a scrape that found it unchanged compressed it apart. */
  piece?: TakenPiece;
}

export class KeptCompression {
  private kept = new Map<number, Kept>();

  /** Forgets every block (their lines were rebuilt). */
  clear(): void {
    this.kept = new Map();
  }

  /**
   * Writes block `key` (what `fill` writes) into `out`. `stamp` must change whenever the block's
   * bytes may have changed. Only a writer with a sink (a gzip scrape) uses or updates what is kept.
   */
  write(out: TextOut, key: number, stamp: number, fill: () => void): void {
    if (!out.compressing) return fill();
    const k = this.kept.get(key);
    if (k === undefined || k.stamp !== stamp) {
      this.kept.set(key, { stamp });
      return fill();
    }
    if (k.piece) return out.writeBlock(fill, k.piece);
    out.writeBlock(fill, undefined, ({ crc, length, compressed }) => {
      compressed.then(
        (z) => {
          // Only for the same block at the same stamp. A copy: zlib's result may be a view of a
          // larger output buffer, and a small Buffer.from() one of Node's shared 8 KB slabs.
          if (this.kept.get(key) !== k || k.stamp !== stamp) return;
          const copy = Buffer.allocUnsafeSlow(z.length);
          z.copy(copy);
          k.piece = { crc, length, compressed: copy };
        },
        () => undefined,
      );
    });
  }
}
