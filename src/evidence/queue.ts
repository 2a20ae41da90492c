// The records waiting for the disk: bounded by count and by bytes, in arrival order. Each record
// carries the promise its caller holds, settled once it is synced or dropped.

export interface Pending {
  line: Buffer;
  node: string;
  resolve: () => void;
  reject: (err: Error) => void;
  settled: boolean;
  attempts: number;
}

export class EvidenceQueue {
  private items: Pending[] = [];
  private bytes = 0;

  constructor(
    readonly maxRecords: number,
    readonly maxBytes: number,
  ) {}

  get length(): number {
    return this.items.length;
  }

  /** Queues a line; undefined (nothing queued) when it does not fit. */
  push(line: Buffer, node: string): Promise<void> | undefined {
    if (this.items.length >= this.maxRecords || this.bytes + line.byteLength > this.maxBytes) return undefined;
    let resolveFn!: () => void;
    let rejectFn!: (err: Error) => void;
    const promise = new Promise<void>((res, rej) => {
      resolveFn = res;
      rejectFn = rej;
    });
    promise.catch(() => {});
    this.items.push({ line, node, resolve: resolveFn, reject: rejectFn, settled: false, attempts: 0 });
    this.bytes += line.byteLength;
    return promise;
  }

  /** Takes up to `max` records from the head. */
  take(max: number): Pending[] {
    const batch = this.items.splice(0, max);
    for (const p of batch) this.bytes -= p.line.byteLength;
    return batch;
  }

  /** Puts records back at the head, in order (a failed batch is tried again first). */
  putBack(records: Pending[]): void {
    this.items.unshift(...records);
    for (const p of records) this.bytes += p.line.byteLength;
  }
}

/** Acknowledges a synced record. */
export function settleWritten(rec: Pending): void {
  rec.settled = true;
  rec.resolve();
}

/** Refuses a record that will never be written. */
export function settleDropped(rec: Pending, reason: string): void {
  rec.settled = true;
  rec.reject(new Error(reason));
}
