// Replaces a file atomically (temp file, fsync, rename, fsync of the directory), so a crash leaves
// the old file or the new one, never a part. Every durable file of the exporter is written here
// (alert state, status history). The content arrives in pieces that are copied into one
// small buffer and written each time it fills: a large file (the status history of 10,000 nodes is
// ~40 MB) never exists whole in memory, and building it yields to the event loop between writes.
// The temp file is the writer's own: a random name, created exclusively and never through a
// symlink (O_CREAT|O_EXCL|O_NOFOLLOW), so a link or file planted in the directory is never written
// through or over; a name taken is passed over for another.
import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, rename, unlink, type FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

const CHUNK_BYTES = 256 * 1024;
/** Names tried before giving up (a random name is taken only if planted or by a crash's leftover). */
const TEMP_TRIES = 16;
const TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
/** A temp file of ours this much older than a finished write was left by a crash: removed. */
const LEFTOVER_AGE_MS = 10 * 60_000;

export interface AtomicWriteOptions {
  /** The temp file's name in the target's directory (tests); default `.<name>.<16 random hex>.tmp`. */
  tempName?: () => string;
}

export async function writeFileAtomically(
  path: string,
  pieces: Iterable<string>,
  opts: AtomicWriteOptions = {},
): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const name = opts.tempName ?? (() => `.${basename(path)}.${randomBytes(8).toString('hex')}.tmp`);
  const { fh, tmp } = await openTemp(dir, name);
  try {
    await writePieces(fh, pieces);
    await fh.sync();
  } catch (err) {
    await fh.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  await fh.close();
  try {
    await rename(tmp, path);
  } catch (err) {
    // A failed write leaves no temp file behind (each retry makes a new one).
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  const d = await open(dir, 'r');
  try {
    await d.sync();
  } finally {
    await d.close();
  }
  if (!opts.tempName) await removeLeftovers(dir, basename(path));
}

/** Temp files a crash left (a random name is never reused, so none is written over): each a whole copy. */
async function removeLeftovers(dir: string, base: string): Promise<void> {
  const prefix = `.${base}.`;
  const ours = (f: string) => f.startsWith(prefix) && /^[0-9a-f]{16}\.tmp$/.test(f.slice(prefix.length));
  for (const f of (await readdir(dir).catch(() => [] as string[])).filter(ours)) {
    const s = await lstat(join(dir, f)).catch(() => undefined);
    if (s?.isFile() && Date.now() - s.mtimeMs > LEFTOVER_AGE_MS) await unlink(join(dir, f)).catch(() => undefined);
  }
}

/** A new temp file, opened exclusively; a name that exists (whatever it is) is passed over. */
async function openTemp(dir: string, name: () => string): Promise<{ fh: FileHandle; tmp: string }> {
  for (let i = 0; ; i++) {
    const tmp = join(dir, name());
    try {
      return { fh: await open(tmp, TEMP_FLAGS, 0o600), tmp };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // ELOOP: a symlink there (O_NOFOLLOW), where O_EXCL alone would say EEXIST.
      if ((code !== 'EEXIST' && code !== 'ELOOP') || i + 1 >= TEMP_TRIES) throw err;
    }
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
