// The evidence store: a bounded in-memory queue (queue.ts) in front of an append-only,
// size-rotated set of JSONL files (writer.ts, retention.ts). Polling only enqueues; one writer
// loop commits batches (write, then fdatasync, then acknowledge), so a burst costs one sync per
// batch and an acknowledged record survives kill -9. A failed batch is tried again with backoff.
import { hostname } from 'node:os';
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { EvidenceSettings } from '../domain.js';
import type { Logger } from '../logger.js';
import type { Secrets } from '../redact.js';
import { prepareEvidenceDir } from './check.js';
import { readEvidence, type EvidenceQuery, type ReadOptions, type ReadResult } from './files.js';
import { EvidenceQueue, settleDropped, type Pending } from './queue.js';
import {
  buildEvidenceRecord,
  serializeRecord,
  type EvidenceInput,
  type EvidenceRecord,
  type RunnerIdentity,
} from './record.js';
import { EvidenceWriter } from './writer.js';

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

const DAY_MS = 86_400_000;
const MAX_BATCH = 1000;
const MAX_RETRY_DELAY_MS = 30_000;

export class EvidenceStore {
  private readonly dir: string;
  private readonly syncDelayMs: number;
  private readonly maxBodyBytes: number | undefined;
  private readonly runner: RunnerIdentity;
  private readonly logger: Logger;
  private readonly secrets: Secrets | undefined;
  private readonly now: () => Date;
  private readonly retryDelayMs: number;
  private readonly maxAttempts: number;
  private readonly queue: EvidenceQueue;
  private readonly files: EvidenceWriter;
  /** Failed batches in a row; sets the wait before the next try. */
  private consecutiveFailures = 0;

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
    this.queue = new EvidenceQueue(opts.maxQueue ?? 10_000, opts.maxQueueBytes ?? 16 * 1024 * 1024);
    this.syncDelayMs = opts.syncDelayMs ?? 5;
    this.maxBodyBytes = opts.maxBodyBytes;
    this.runner = opts.runner ?? { hostname: hostname(), version: 'unknown' };
    this.logger = opts.logger;
    this.secrets = opts.secrets;
    this.now = opts.now ?? (() => new Date());
    this.retryDelayMs = opts.retryDelayMs ?? 1000;
    this.maxAttempts = opts.maxAttempts ?? 8;
    const maxFileBytes = Math.max(
      1,
      Math.min(opts.maxFileBytes ?? Math.min(16 * 1024 * 1024, Math.floor(settings.maxBytes / 8)), settings.maxBytes),
    );
    this.files = new EvidenceWriter(this.dir, {
      maxBytes: settings.maxBytes,
      maxAgeMs: settings.maxAgeDays * DAY_MS,
      maxFileBytes,
      now: this.now,
    });
  }

  /** Creates the directory if needed; throws an Error with a clear message when it is unusable. */
  static async open(settings: EvidenceSettings, opts: EvidenceStoreOptions): Promise<EvidenceStore> {
    await prepareEvidenceDir(settings);
    const store = new EvidenceStore(settings, opts);
    await store.files.rescan();
    await store.files.removeEmptyFiles();
    await store.files.enforceRetention();
    const every = opts.retentionIntervalMs ?? 3_600_000;
    store.retentionTimer = setInterval(() => {
      store.exclusive(() => store.files.enforceRetention()).catch((err) => store.noteWriteError(err));
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
    const queued = this.queue.push(line, input.node);
    if (!queued) {
      if (!this.queueFullLogged) {
        this.queueFullLogged = true;
        this.logger.warn(
          { dir: this.dir, maxQueue: this.queue.maxRecords },
          'evidence queue full: records are dropped until the disk catches up',
        );
      }
      return this.drop('evidence queue full');
    }
    this.schedule();
    return queued;
  }

  /** The newest records first, as the files hold them: a batch may show before it is synced and counted. */
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
      bytes: this.files.totalBytes(),
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
      await this.exclusive(() => this.files.closeActive());
    })();
    return this.closing;
  }

  // ---- writer loop ----

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
        const batch = this.queue.take(MAX_BATCH);
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
        await this.files.rescan();
        this.rescanNeeded = false;
      }
      await this.files.writeBatch(
        batch,
        (rec) => this.recordsByNode.set(rec.node, (this.recordsByNode.get(rec.node) ?? 0) + 1),
        (rec, reason) => this.dropOne(rec, reason),
      );
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
      // I/O error keeps the current file (the writer cut it back to its last complete record).
      if (code === 'ENOENT' || code === 'ENOTDIR' || !this.files.hasActive()) {
        await this.files.closeActive().catch(() => {});
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
    this.queue.putBack(again);
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lock.then(fn);
    this.lock = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private noteWriteError(err: unknown): void {
    this.writeErrors++;
    if (this.failing) return;
    this.failing = true;
    // Log once per burst of failures; the error names a path and a code, never record content.
    const e = err as NodeJS.ErrnoException;
    this.logger.error(
      { dir: this.dir, code: e?.code, err: e?.message ?? String(err) },
      'evidence write failed: records are dropped and counted',
    );
  }

  private drop(reason: string): Promise<void> {
    this.dropped++;
    const p = Promise.reject(new Error(reason));
    p.catch(() => {});
    return p;
  }

  private dropOne(rec: Pending, reason: string): void {
    this.dropped++;
    settleDropped(rec, reason);
  }
}
