// Reads a file's lines from its end towards its start, a chunk at a time, so a query for the
// newest records touches only the tail of the newest file and holds one chunk plus one line. A
// line whose bytes are not UTF-8 is skipped like a torn one, never decoded as if whole (U+FFFD in
// place of what was written).
import { isUtf8 } from 'node:buffer';
import { open } from 'node:fs/promises';

const CHUNK = 64 * 1024;
/** A "line" longer than this is not one of our records (they are a few KiB): skipped, not buffered. */
const MAX_LINE = 1024 * 1024;

export interface ScanBudget {
  /** Bytes this query may still read; shared by every file of the query. */
  bytes: number;
}

export interface BackwardLine {
  /** The line without its newline; undefined for a skipped line (torn write, oversize, not UTF-8). */
  text: string | undefined;
}

/**
 * Complete lines, newest (last) first. The text after the file's last newline is a torn write and
 * comes out as a skipped line; so does an over-long line. Stops when the budget runs out (the
 * caller sees budget.bytes <= 0).
 */
export async function* linesBackwards(path: string, budget: ScanBudget): AsyncGenerator<BackwardLine> {
  const handle = await open(path, 'r');
  try {
    let pos = (await handle.stat()).size;
    let carry: Buffer[] = [];
    let carryBytes = 0;
    let tail = true;
    let oversize = false;
    while (pos > 0 && budget.bytes > 0) {
      const len = Math.min(CHUNK, pos, budget.bytes);
      pos -= len;
      budget.bytes -= len;
      const buf = Buffer.allocUnsafe(len);
      const { bytesRead } = await handle.read(buf, 0, len, pos);
      const chunk = buf.subarray(0, bytesRead);
      let end = chunk.length;
      for (let nl = chunk.lastIndexOf(10, end - 1); nl >= 0; nl = end > 0 ? chunk.lastIndexOf(10, end - 1) : -1) {
        const piece = [chunk.subarray(nl + 1, end), ...carry];
        const skip = tail ? piece.some((p) => p.length > 0) : false;
        if (tail) tail = false;
        else yield { text: oversize ? undefined : strictText(Buffer.concat(piece)) };
        if (skip) yield { text: undefined };
        carry = [];
        carryBytes = 0;
        oversize = false;
        end = nl;
      }
      if (end > 0) {
        carryBytes += end;
        if (carryBytes > MAX_LINE) {
          oversize = true;
          carry = [];
        } else carry = [chunk.subarray(0, end), ...carry];
      }
    }
    // The file's first line, when it was reached (not cut off by the budget).
    if (pos === 0 && (carryBytes > 0 || oversize))
      yield { text: oversize || tail ? undefined : strictText(Buffer.concat(carry)) };
  } finally {
    await handle.close();
  }
}

const strictText = (line: Buffer): string | undefined => (isUtf8(line) ? line.toString('utf8') : undefined);
