// Reads back a file the exporter wrote itself (alert state, status history), trusting nothing in
// it: at most `maxBytes` are read, so memory stays bounded whatever the file has grown to (a file
// larger than the exporter writes is read as cut there), and its bytes are decoded strictly
// (utf8.ts). Either way the caller is told the text is not whole and treats the file as damaged:
// set aside, never written over, salvaged where it can be.
import { open } from 'node:fs/promises';
import { decodeUtf8 } from './utf8.js';

export interface ReadBack {
  /** The text; when `damage` is set, with each bad byte as DAMAGE_MARK and cut at maxBytes. */
  text: string;
  /** Why the text is not the whole file as written, for the log; undefined when it is. */
  damage?: string;
  mtimeMs: number;
}

/** The file's text; undefined when it does not exist. Throws (with the error's code) when it cannot be read. */
export async function readBack(path: string, maxBytes: number): Promise<ReadBack | undefined> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const stat = await fh.stat();
    // One byte past the bound tells a file at the bound from a larger one.
    const buf = Buffer.allocUnsafe(Math.min(stat.size, maxBytes) + 1);
    let got = 0;
    for (let n = -1; n !== 0 && got < buf.length; got += n) n = (await fh.read(buf, got, buf.length - got)).bytesRead;
    const over = got > maxBytes;
    const { text, invalidAt } = decodeUtf8(buf.subarray(0, Math.min(got, maxBytes)));
    const damage = [
      ...(invalidAt !== undefined ? [`not valid UTF-8 at byte ${invalidAt}`] : []),
      ...(over ? [`larger than ${maxBytes} bytes, read as cut there`] : []),
    ].join('; ');
    return { text, mtimeMs: Math.floor(stat.mtimeMs), ...(damage ? { damage } : {}) };
  } finally {
    await fh.close();
  }
}
