// The evidence store: a bounded in-memory queue in front of an append-only, size-rotated set of
// JSONL files. Polling only enqueues; one writer commits batches (write, then fdatasync, then
// acknowledge), so a burst costs one sync per batch and an acknowledged record survives kill -9.
import { hostname } from 'node:os';
import { mkdir, open, unlink, type FileHandle } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { EvidenceSettings } from '../domain.js';
import type { Logger } from '../logger.js';
import type { Secrets } from '../redact.js';
import { checkEvidenceDir } from './check.js';
import { evidenceFileName, listEvidenceFiles, readEvidence, type EvidenceQuery, type ReadOptions, type ReadResult } from './files.js';
import { buildEvidenceRecord, serializeRecord, type EvidenceInput, type EvidenceRecord, type RunnerIdentity } from './record.js';

export interface EvidenceStats {
  /** Records written and synced since start, per node. */
  recordsByNode: Map<string, number>;
  /** Failed write batches (disk full, directory gone, I/O error). */
  writeErrors: number;
  /** Records that were never written: queue full, failed batch, too large, store closed. */
  dropped: number;
  /** Total size of the evidence files in the directory. */
  bytes: number;
}

export interface EvidenceStoreOptions {
  logger: Logger;
  /** The run's secrets, scrubbed from every record. */
  secrets?: Secrets;
  runner?: RunnerIdentity;
  /** Records waiting for the disk at most; more are dropped and counted. Default 10,000. */
  maxQueue?: number;
  /** Bytes waiting for the disk at most (escaped bodies can be large). Default 16 MiB. */
  maxQueueBytes?: number;
  /** How long the writer waits to gather a batch after the first record. Default 5 ms. */
  syncDelayMs?: number;
  /** Rotate the active file at this size. Default min(16 MiB, maxBytes / 8). */
  maxFileBytes?: number;
  /** Body bytes kept per record. Default 4096. */
  maxBodyBytes?: number;
  /** Clock, for tests of age-based retention. */
  now?: () => Date;
  /** How often age-based retention runs. Default one hour. */
  retentionIntervalMs?: number;
  /** First wait before a failed batch is written again (doubling, at most 30 s). Default 1 s. */
  retryDelayMs?: number;
  /** Writes tried per record before it is dropped and counted. Default 8 (about two minutes of failures). */
  maxAttempts?: number;
}

interface Pending {
  line: Buffer;
  node: string;
  resolve: () => void;
  reject: (err: Error) => void;
  settled: boolean;
  attempts: number;
}

interface ActiveFile {
  name: string;
  handle: FileHandle;
}

const DAY_MS = 86_400_000;
const MAX_BATCH = 1000;
const MAX_RETRY_DELAY_MS = 30_000;
/** What a file costs against maxBytes at least: an empty file still takes an inode and a directory entry. */
const MIN_FILE_COST = 512;

export class EvidenceStore {
  private readonly dir: string;
  private readonly maxBytes: number;
  private readonly maxAgeMs: number;
  private readonly maxQueue: number;
  private readonly maxQueueBytes: number;
  private readonly syncDelayMs: number;
  private readonly maxFileBytes: number;
  private readonly maxBodyBytes: number | undefined;
  private readonly runner: RunnerIdentity;
  private readonly logger: Logger;
  private readonly secrets: Secrets | undefined;
  private readonly now: () => Date;
  private readonly retryDelayMs: number;
  private readonly maxAttempts: number;
  /** Failed batches in a row; sets the wait before the next try. */
  private consecutiveFailures = 0;

  private queue: Pending[] = [];
  private queuedBytes = 0;
  /** Sizes of our files, by name; names sort oldest first. */
  private files = new Map<string, number>();
  private active: ActiveFile | null = null;
  private fileSeq = 0;
  private batchTimer: NodeJS.Timeout | null = null;
  private retentionTimer: NodeJS.Timeout | null = null;
  private writer: Promise<void> | null = null;
  /** Serialises disk work (batches, retention) so files are never deleted under a write. */
  private lock: Promise<void> = Promise.resolve();
  private closed = false;
  private closing: Promise<void> | null = null;
  private failing = false;
  private queueFullLogged = false;
  private rescanNeeded = false;

  private readonly recordsByNode = new Map<string, number>();
  private writeErrors = 0;
  private dropped = 0;

  private constructor(settings: EvidenceSettings, opts: EvidenceStoreOptions) {
    this.dir = resolve(settings.dir);
    this.maxBytes = settings.maxBytes;
    this.maxAgeMs = settings.maxAgeDays * DAY_MS;
    this.maxQueue = opts.maxQueue ?? 10_000;
    this.maxQueueBytes = opts.maxQueueBytes ?? 16 * 1024 * 1024;
    this.syncDelayMs = opts.syncDelayMs ?? 5;
    this.maxFileBytes = Math.max(1, Math.min(opts.maxFileBytes ?? Math.min(16 * 1024 * 1024, Math.floor(settings.maxBytes / 8)), settings.maxBytes));
    this.maxBodyBytes = opts.maxBodyBytes;
    this.runner = opts.runner ?? { hostname: hostname(), version: 'unknown' };
    this.logger = opts.logger;
    this.secrets = opts.secrets;
    this.now = opts.now ?? (() => new Date());
    this.retryDelayMs = opts.retryDelayMs ?? 1000;
    this.maxAttempts = opts.maxAttempts ?? 8;
  }

  /** Creates the directory if needed; throws an Error with a clear message when it is unusable. */
  static async open(settings: EvidenceSettings, opts: EvidenceStoreOptions): Promise<EvidenceStore> {
    if (!(settings.maxBytes > 0) || !(settings.maxAgeDays > 0)) {
      throw new Error(`evidence: maxBytes and maxAgeDays must be positive (got ${settings.maxBytes}, ${settings.maxAgeDays})`);
    }
    const problem = await checkEvidenceDir(settings.dir);
    if (problem) throw new Error(problem);
    try {
      await mkdir(resolve(settings.dir), { recursive: true });
    } catch (err) {
      throw new Error(`evidence.dir ${resolve(settings.dir)} cannot be created (${(err as NodeJS.ErrnoException).code ?? err})`);
    }
    const store = new EvidenceStore(settings, opts);
    await store.rescan();
    await store.removeEmptyFiles();
    await store.enforceRetention();
    const every = opts.retentionIntervalMs ?? 3_600_000;
    store.retentionTimer = setInterval(() => {
      store.exclusive(() => store.enforceRetention()).catch((err) => store.noteWriteError(err));
    }, every);
    store.retentionTimer.unref();
    return store;
  }

  /**
   * Queues one record. Never throws and never waits for the disk: the promise resolves once the
   * record is synced, or rejects if it was dropped. Callers need not await it (rejections are handled).
   */
  append(input: EvidenceInput): Promise<void> {
    let line: Buffer;
    try {
      line = serializeRecord(buildEvidenceRecord(input, this.runner, this.now(), this.maxBodyBytes, this.secrets));
    } catch (err) {
      return this.drop(`evidence record could not be built: ${(err as Error).message}`);
    }
    if (this.closed) return this.drop('evidence store is closed');
    if (this.queue.length >= this.maxQueue || this.queuedBytes + line.byteLength > this.maxQueueBytes) {
      if (!this.queueFullLogged) {
        this.queueFullLogged = true;
        this.logger.warn({ dir: this.dir, maxQueue: this.maxQueue }, 'evidence queue full: records are dropped until the disk catches up');
      }
      return this.drop('evidence queue full');
    }
    let resolveFn!: () => void;
    let rejectFn!: (err: Error) => void;
    const promise = new Promise<void>((res, rej) => {
      resolveFn = res;
      rejectFn = rej;
    });
    promise.catch(() => {});
    this.queue.push({ line, node: input.node, resolve: resolveFn, reject: rejectFn, settled: false, attempts: 0 });
    this.queuedBytes += line.byteLength;
    this.schedule();
    return promise;
  }

  /** The newest records first, read from disk (acknowledged records only). */
  async query(q: EvidenceQuery): Promise<EvidenceRecord[]> {
    return (await readEvidence(this.dir, q)).records;
  }

  /** As query, with a bound on the bytes read (the HTTP API). */
  read(q: EvidenceQuery, opts: ReadOptions): Promise<ReadResult> {
    return readEvidence(this.dir, q, opts);
  }

  stats(): EvidenceStats {
    return {
      recordsByNode: new Map(this.recordsByNode),
      writeErrors: this.writeErrors,
      dropped: this.dropped,
      bytes: this.totalBytes(),
    };
  }

  /** Resolves once every record queued before the call has been written or dropped. */
  async flush(): Promise<void> {
    // Bounded: each round commits at least one batch or finds the queue empty.
    for (let round = 0; round < 1_000_000; round++) {
      if (this.batchTimer) {
        clearTimeout(this.batchTimer);
        this.batchTimer = null;
        this.startWriter();
      }
      if (this.writer) await this.writer.catch(() => {});
      else if (this.queue.length > 0) this.startWriter();
      else return;
    }
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      // Closed first: records arriving from now on are refused (and counted), queued ones are written.
      this.closed = true;
      if (this.retentionTimer) clearInterval(this.retentionTimer);
      this.retentionTimer = null;
      await this.flush();
      await this.exclusive(() => this.closeActive());
    })();
    return this.closing;
  }

  // ---- writer ----

  private schedule(delayMs = this.syncDelayMs): void {
    if (this.writer || this.batchTimer) return;
    this.batchTimer = setTimeout(() => {
      this.batchTimer = null;
      this.startWriter();
    }, delayMs);
  }

  private retryDelay(): number {
    if (this.consecutiveFailures === 0) return this.syncDelayMs;
    return Math.min(this.retryDelayMs * 2 ** (this.consecutiveFailures - 1), MAX_RETRY_DELAY_MS);
  }

  private startWriter(): void {
    if (this.writer) return;
    this.writer = this.exclusive(async () => {
      // Group commit: records queued while a batch was syncing form the next batch.
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        for (const p of batch) this.queuedBytes -= p.line.byteLength;
        if (this.queue.length === 0) this.queueFullLogged = false;
        // A failed batch went back to the queue: wait before trying again.
        if (!(await this.writeBatch(batch))) break;
      }
    })
      .catch((err) => this.noteWriteError(err))
      .finally(() => {
      this.writer = null;
      if (this.queue.length > 0) this.schedule(this.retryDelay());
    });
  }

  /** False when the batch failed and its records were queued again (or dropped after maxAttempts). */
  private async writeBatch(batch: Pending[]): Promise<boolean> {
    try {
      if (this.rescanNeeded) {
        await mkdir(this.dir, { recursive: true });
        await this.rescan();
        this.rescanNeeded = false;
      }
      let chunk: Pending[] = [];
      let chunkBytes = 0;
      for (const rec of batch) {
        if (rec.line.byteLength > this.maxBytes) {
          this.dropOne(rec, 'evidence record larger than evidence.maxBytes');
          continue;
        }
        const activeSize = this.active ? (this.files.get(this.active.name) ?? 0) : 0;
        if (activeSize + chunkBytes > 0 && activeSize + chunkBytes + rec.line.byteLength > this.maxFileBytes) {
          await this.commit(chunk, chunkBytes);
          chunk = [];
          chunkBytes = 0;
          await this.rotate();
        }
        chunk.push(rec);
        chunkBytes += rec.line.byteLength;
      }
      await this.commit(chunk, chunkBytes);
      this.consecutiveFailures = 0;
      if (this.failing) {
        this.failing = false;
        this.logger.info({ dir: this.dir }, 'evidence writes recovered');
      }
      return true;
    } catch (err) {
      this.noteWriteError(err);
      this.consecutiveFailures++;
      const code = (err as NodeJS.ErrnoException).code;
      // Directory gone or replaced: find out what is there before the next try. A full disk or an
      // I/O error keeps the current file (commit cut it back to its last complete record).
      if (code === 'ENOENT' || code === 'ENOTDIR' || this.active === null) {
        await this.closeActive().catch(() => {});
        this.rescanNeeded = true;
      }
      this.requeue(batch.filter((rec) => !rec.settled));
      return false;
    }
  }

  /** Failed records go back to the head of the queue, in order, until closed or out of attempts. */
  private requeue(failed: Pending[]): void {
    const again: Pending[] = [];
    for (const rec of failed) {
      rec.attempts++;
      if (this.closed || rec.attempts >= this.maxAttempts) this.dropOne(rec, 'evidence write failed');
      else again.push(rec);
    }
    this.queue.unshift(...again);
    for (const rec of again) this.queuedBytes += rec.line.byteLength;
  }

  /** Writes one chunk to the active file, syncs it, then acknowledges its records. */
  private async commit(chunk: Pending[], bytes: number): Promise<void> {
    if (chunk.length === 0) return;
    await this.makeRoom(bytes);
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
      this.recordsByNode.set(p.node, (this.recordsByNode.get(p.node) ?? 0) + 1);
      p.settled = true;
      p.resolve();
    }
  }

  /** Deletes the oldest files until `incoming` more bytes fit within maxBytes. */
  private async makeRoom(incoming: number): Promise<void> {
    // Bounded: each round deletes a file or retires the active one (at most once).
    const rounds = this.files.size + 1;
    for (let i = 0; i < rounds && this.retainedCost() + incoming > this.maxBytes; i++) {
      const victim = [...this.files.keys()].sort().find((n) => n !== this.active?.name);
      if (victim) await this.deleteFile(victim);
      else if (this.active) await this.rotate();
      else break;
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

  /** Empty evidence files (left by a crash or an older version on a full disk) hold nothing: removed. */
  private async removeEmptyFiles(): Promise<void> {
    for (const [name, size] of this.files) if (size === 0) await this.deleteFile(name).catch(() => {});
  }

  private async ensureActive(): Promise<ActiveFile> {
    if (this.active) return this.active;
    // Bounded: 'ax' fails only when the name exists; a fresh sequence number settles it.
    for (let i = 0; i < 100; i++) {
      const name = evidenceFileName(this.now(), this.fileSeq++);
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

  /** Closes the active file; the next write opens a new one. Then applies retention. */
  private async rotate(): Promise<void> {
    await this.closeActive();
    await this.enforceRetention();
  }

  private async closeActive(): Promise<void> {
    const active = this.active;
    this.active = null;
    if (active) await active.handle.close();
  }

  /** Deletes files past maxAgeDays, then the oldest files while the total exceeds maxBytes. */
  private async enforceRetention(): Promise<void> {
    const cutoff = this.now().getTime() - this.maxAgeMs;
    for (const info of await listEvidenceFiles(this.dir)) {
      if (info.mtimeMs >= cutoff) continue;
      if (info.name === this.active?.name) await this.closeActive();
      await this.deleteFile(info.name);
    }
    await this.makeRoom(0);
  }

  private async deleteFile(name: string): Promise<void> {
    try {
      await unlink(join(this.dir, name));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    this.files.delete(name);
  }

  private async rescan(): Promise<void> {
    this.files = new Map((await listEvidenceFiles(this.dir)).map((f) => [f.name, f.size]));
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

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lock.then(fn);
    this.lock = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** What the files cost against maxBytes: every file counts, an empty one too. */
  private retainedCost(): number {
    let sum = 0;
    for (const size of this.files.values()) sum += Math.max(size, MIN_FILE_COST);
    return sum;
  }

  private totalBytes(): number {
    let sum = 0;
    for (const size of this.files.values()) sum += size;
    return sum;
  }

  private noteWriteError(err: unknown): void {
    this.writeErrors++;
    if (this.failing) return;
    this.failing = true;
    // Log once per burst of failures; the error names a path and a code, never record content.
    const e = err as NodeJS.ErrnoException;
    this.logger.error({ dir: this.dir, code: e?.code, err: e?.message ?? String(err) }, 'evidence write failed: records are dropped and counted');
  }

  private drop(reason: string): Promise<void> {
    this.dropped++;
    const p = Promise.reject(new Error(reason));
    p.catch(() => {});
    return p;
  }

  private dropOne(rec: Pending, reason: string): void {
    this.dropped++;
    rec.settled = true;
    rec.reject(new Error(reason));
  }
}
