// Replaces a file atomically (temp file, fsync, rename, fsync of the directory), so a crash leaves
// the old file or the new one, never a part. Every durable file of the exporter is written here
// (alert state, status history). The content arrives in pieces that are copied into one
// small buffer and written each time it fills: a large file (the status history of 10,000 nodes is
// ~40 MB) never exists whole in memory, and building it yields to the event loop between writes.
import { mkdir, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

const CHUNK_BYTES = 256 * 1024;

export async function writeFileAtomically(path: string, pieces: Iterable<string>): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${basename(path)}.${process.pid}.tmp`);
  const fh = await open(tmp, 'w', 0o600);
  try {
    await writePieces(fh, pieces);
    await fh.sync();
  } catch (err) {
    await fh.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  await fh.close();
  await rename(tmp, path);
  const d = await open(dir, 'r');
  try {
    await d.sync();
  } finally {
    await d.close();
  }
}

async function writePieces(fh: FileHandle, pieces: Iterable<string>): Promise<void> {
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let used = 0;
  for (const piece of pieces) {
    const bytes = Buffer.byteLength(piece);
    if (used + bytes > CHUNK_BYTES && used > 0) {
      await writeAll(fh, chunk, used);
      used = 0;
    }
    if (bytes > CHUNK_BYTES) await writeAll(fh, Buffer.from(piece), bytes);
    else used += chunk.write(piece, used);
  }
  if (used > 0) await writeAll(fh, chunk, used);
}

/** A write to a regular file may still be short (disk full is reported by the next one). */
async function writeAll(fh: FileHandle, buf: Buffer, length: number): Promise<void> {
  for (let off = 0; off < length;) off += (await fh.write(buf, off, length - off)).bytesWritten;
}
