// The lines of a run of consecutive nodes (in /metrics order), one Buffer per per-node family.
// A scrape copies each family's Buffer whole, so 10,000 nodes cost a few thousand copies instead
// of one per node and family (~220,000, most of a scrape). A node's changed lines are written in
// place; when their length changes, only the rest of this run moves.
import type { TextOut } from './byteWriter.js';

/** Nodes per run: longer runs mean fewer copies per scrape but longer moves per changed line. */
export const SEGMENT_NODES = 64;

export class Segment {
  /** Per family: the nodes' lines back to back (with room to grow at the end). */
  private readonly cols: Buffer[];
  /** Per family: where each node's lines start; entry `count` is where the last one ends. */
  private readonly starts: Uint32Array[];
  /** Per family: how many times its lines were set (only ever grows). */
  private readonly versions: number[];

  /** `lines[i][f]`: node i's lines of family f. */
  constructor(lines: readonly string[][], families: number) {
    const count = lines.length;
    this.cols = [];
    this.starts = [];
    this.versions = new Array<number>(families).fill(0);
    for (let f = 0; f < families; f++) {
      let text = '';
      for (let i = 0; i < count; i++) text += lines[i]![f]!;
      const bytes = Buffer.byteLength(text);
      // ASCII (the usual case): string lengths are byte lengths, no need to measure each node's.
      const measure = bytes === text.length ? (s: string) => s.length : (s: string) => Buffer.byteLength(s);
      const starts = new Uint32Array(count + 1);
      for (let i = 0; i < count; i++) starts[i + 1] = starts[i]! + measure(lines[i]![f]!);
      const col = Buffer.allocUnsafeSlow(roomFor(bytes));
      col.write(text, 0, 'utf8');
      this.cols.push(col);
      this.starts.push(starts);
    }
  }

  /** Replaces node `at`'s lines of family `f`. */
  set(f: number, at: number, lines: string): void {
    const starts = this.starts[f]!;
    const count = starts.length - 1;
    const start = starts[at]!;
    const end = starts[at + 1]!;
    this.versions[f]!++;
    // Encoded once, to learn their length and to copy them in place (byteLength then write
    // walked the concatenated string twice).
    if (lines.length * 3 > scratch.length) scratch = Buffer.allocUnsafeSlow(lines.length * 3);
    const len = lines.length === 0 ? 0 : scratch.write(lines, 0, 'utf8');
    let col = this.cols[f]!;
    if (len !== end - start) {
      const used = starts[count]!;
      const delta = len - (end - start);
      if (used + delta > col.length) {
        const next = Buffer.allocUnsafeSlow(roomFor(used + delta));
        col.copy(next, 0, 0, used);
        this.cols[f] = col = next;
      }
      col.copyWithin(start + len, end, used);
      for (let k = at + 1; k <= count; k++) starts[k] = starts[k]! + delta;
    }
    if (len > 0) scratch.copy(col, start, 0, len);
  }

  /** Changes whenever family `f`'s lines may have changed. */
  version(f: number): number {
    return this.versions[f]!;
  }

  /** Copies family `f`'s lines of every node of the run into `out`. */
  writeFamily(f: number, out: TextOut): void {
    const starts = this.starts[f]!;
    out.writeRange(this.cols[f]!, 0, starts[starts.length - 1]!);
  }
}

/**
 * Where set() encodes lines: a node's lines of one family are a few hundred bytes (3 bytes per UTF-16 unit at most).
 */
let scratch = Buffer.allocUnsafeSlow(16 * 1024);

/**
 * Capacity for `used` bytes: room for lines to grow a little without reallocating. A run's lines
 * change length by a few bytes per value written (a duration or a timestamp one digit longer), up
 * and down around their usual length; an eighth of room was 5 MB of a 10,000-node fleet's 42 MB.
 */
const roomFor = (used: number) => used + (used >> 5) + 256;
