// The evidence files on disk: an append-only active file rotated by size, and the sizes of every
// file in the directory. A batch is written in chunks that fit the active file; each chunk is
// written, synced, then acknowledged, and a chunk that fails is cut back off the file.
import { mkdir, open, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { evidenceFileName, listEvidenceFiles } from './files.js';
import { settleWritten, type Pending } from './queue.js';
import { enforceRetention, makeRoom, type RetainedFiles, type RetentionLimits } from './retention.js';

interface ActiveFile {
  name: string;
  handle: FileHandle;
}

/** What a file costs against maxBytes at least: an empty file still takes an inode and a directory entry. */
const MIN_FILE_COST = 512;

export interface WriterLimits extends RetentionLimits {
  /** Rotate the active file at this size. */
  maxFileBytes: number;
}

export class EvidenceWriter implements RetainedFiles {
  /** Sizes of our files, by name; names sort oldest first. */
  private files = new Map<string, number>();
  private active: ActiveFile | null = null;
  private fileSeq = 0;

  constructor(
    readonly dir: string,
    private readonly limits: WriterLimits,
  ) {}

  /**
   * Writes a batch; records larger than maxBytes are dropped through `drop`. `written` is called
   * for each record once it is synced. Throws on the first failed chunk (its records unsettled).
   */
  async writeBatch(
    batch: Pending[],
    written: (rec: Pending) => void,
    drop: (rec: Pending, reason: string) => void,
  ): Promise<void> {
    let chunk: Pending[] = [];
    let chunkBytes = 0;
    for (const rec of batch) {
      if (rec.line.byteLength > this.limits.maxBytes) {
        drop(rec, 'evidence record larger than evidence.maxBytes');
        continue;
      }
      const activeSize = this.active ? (this.files.get(this.active.name) ?? 0) : 0;
      if (activeSize + chunkBytes > 0 && activeSize + chunkBytes + rec.line.byteLength > this.limits.maxFileBytes) {
        await this.commit(chunk, chunkBytes, written);
        chunk = [];
        chunkBytes = 0;
        await this.rotate();
      }
      chunk.push(rec);
      chunkBytes += rec.line.byteLength;
    }
    await this.commit(chunk, chunkBytes, written);
  }

  /** Writes one chunk to the active file, syncs it, then acknowledges its records. */
  private async commit(chunk: Pending[], bytes: number, written: (rec: Pending) => void): Promise<void> {
    if (chunk.length === 0) return;
    await makeRoom(this, bytes, this.limits.maxBytes);
    let active = await this.ensureActive();
    // A file unlinked under us (directory removed by hand) would swallow acknowledged records.
    if ((await active.handle.stat()).nlink === 0) {
      this.files.delete(active.name);
      await this.closeActive();
      await mkdir(this.dir, { recursive: true });
      active = await this.ensureActive();
    }
    const data = Buffer.concat(
      chunk.map((p) => p.line),
      bytes,
    );
    const before = this.files.get(active.name) ?? 0;
    try {
      let offset = 0;
      // Bounded: every successful write advances; a zero-byte write is an error.
      while (offset < data.byteLength) {
        const { bytesWritten } = await active.handle.write(data, offset, data.byteLength - offset);
        if (bytesWritten <= 0) throw new Error('evidence write made no progress');
        offset += bytesWritten;
        this.files.set(active.name, (this.files.get(active.name) ?? 0) + bytesWritten);
      }
      await active.handle.datasync();
    } catch (err) {
      await this.cutBack(active, before);
      throw err;
    }
    for (const p of chunk) {
      written(p);
      settleWritten(p);
    }
  }

  /**
   * Undoes a partly written chunk so the file ends on a complete record and can take the retry.
   * If that fails too, the file is closed (and removed when it holds nothing).
   */
  private async cutBack(active: ActiveFile, size: number): Promise<void> {
    try {
      await active.handle.truncate(size);
      this.files.set(active.name, size);
    } catch {
      await this.closeActive().catch(() => {});
      if (size === 0) await this.deleteFile(active.name).catch(() => {});
    }
  }

  private async ensureActive(): Promise<ActiveFile> {
    if (this.active) return this.active;
    // Bounded: 'ax' fails only when the name exists; a fresh sequence number settles it.
    for (let i = 0; i < 100; i++) {
      const name = evidenceFileName(this.limits.now(), this.fileSeq++);
      if (this.files.has(name)) continue;
      try {
        const handle = await open(join(this.dir, name), 'ax', 0o640);
        this.active = { name, handle };
        this.files.set(name, 0);
        await this.syncDir();
        return this.active;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
    throw new Error('evidence: no free file name');
  }

  /** Makes a new file's directory entry durable too (power loss, not only a process crash). */
  private async syncDir(): Promise<void> {
    let handle: FileHandle | undefined;
    try {
      handle = await open(this.dir, 'r');
      await handle.sync();
    } catch {
      // Some file systems refuse fsync on directories; the data itself is still synced.
    } finally {
      await handle?.close().catch(() => {});
    }
  }

  hasActive(): boolean {
    return this.active !== null;
  }

  activeName(): string | undefined {
    return this.active?.name;
  }

  names(): Iterable<string> {
    return this.files.keys();
  }

  async rotate(): Promise<void> {
    await this.closeActive();
    await this.enforceRetention();
  }

  async closeActive(): Promise<void> {
    const active = this.active;
    this.active = null;
    if (active) await active.handle.close();
  }

  enforceRetention(): Promise<void> {
    return enforceRetention(this, this.limits);
  }

  async deleteFile(name: string): Promise<void> {
    try {
      await unlink(join(this.dir, name));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    this.files.delete(name);
  }

  /** Reads the directory again (at open, and after it was removed or replaced). */
  async rescan(): Promise<void> {
    this.files = new Map((await listEvidenceFiles(this.dir)).map((f) => [f.name, f.size]));
  }

  /** Empty evidence files (left by a crash or an older version on a full disk) hold nothing: removed. */
  async removeEmptyFiles(): Promise<void> {
    for (const [name, size] of this.files) if (size === 0) await this.deleteFile(name).catch(() => {});
  }

  /** What the files cost against maxBytes: every file counts, an empty one too. */
  cost(): number {
    let sum = 0;
    for (const size of this.files.values()) sum += Math.max(size, MIN_FILE_COST);
    return sum;
  }

  totalBytes(): number {
    let sum = 0;
    for (const size of this.files.values()) sum += size;
    return sum;
  }
}
