// bcrypt compares off the event loop: a cost-10 compare takes ~70 ms of pure JS, and on the main
// thread a flood of wrong passwords would delay every poll and evaluation. One worker thread
// (more would take the core the event loop needs) runs them one at a time; at most `maxQueued`
// wait, beyond that a compare is refused at once (the caller answers 503) instead of queueing
// without bound. The worker is unref'd: it never keeps the process alive.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** The worker's code: bcryptjs's synchronous compare (this thread has nothing else to do). */
const WORKER_CODE = `
const { parentPort, workerData } = require('node:worker_threads');
const bcrypt = require(workerData.bcryptjs);
parentPort.on('message', ({ id, password, hash }) => {
  let ok = false, error;
  try { ok = bcrypt.compareSync(password, hash); } catch (e) { error = String(e && e.message || e); }
  parentPort.postMessage({ id, ok, error });
});
`;

export class CompareBusyError extends Error {
  override readonly name = 'CompareBusyError';
}

interface Job {
  resolve(ok: boolean): void;
  reject(err: Error): void;
}

export interface BcryptPoolOptions {
  /** Compares waiting or running at most; more are refused with CompareBusyError. Default 64. */
  maxQueued?: number;
}

export class BcryptPool {
  private worker: Worker | undefined;
  private readonly jobs = new Map<number, Job>();
  private nextId = 1;
  private readonly maxQueued: number;

  constructor(opts: BcryptPoolOptions = {}) {
    this.maxQueued = opts.maxQueued ?? 64;
  }

  /** Compares waiting or running now. */
  get pending(): number {
    return this.jobs.size;
  }

  compare(password: string, hash: string): Promise<boolean> {
    if (this.jobs.size >= this.maxQueued) return Promise.reject(new CompareBusyError('too many password checks'));
    const id = this.nextId++;
    return new Promise<boolean>((resolve, reject) => {
      this.jobs.set(id, { resolve, reject });
      this.started().postMessage({ id, password, hash });
    });
  }

  /** Stops the worker; compares in flight fail. */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    this.failAll(new Error('password checks stopped'));
    await w?.terminate();
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const bcryptjs = createRequire(import.meta.url).resolve('bcryptjs');
    const w = new Worker(WORKER_CODE, { eval: true, workerData: { bcryptjs } });
    w.unref();
    w.on('message', (m: { id: number; ok: boolean; error?: string }) => {
      const job = this.jobs.get(m.id);
      this.jobs.delete(m.id);
      if (m.error !== undefined) job?.reject(new Error(`bcrypt: ${m.error}`));
      else job?.resolve(m.ok);
    });
    // A worker that dies fails what it held; the next compare starts a new one.
    const lost = (err: Error) => {
      if (this.worker !== w) return;
      this.worker = undefined;
      this.failAll(err);
    };
    w.on('error', lost);
    w.on('exit', (code) => lost(new Error(`password check worker exited (${code})`)));
    this.worker = w;
    return w;
  }

  private failAll(err: Error): void {
    const jobs = [...this.jobs.values()];
    this.jobs.clear();
    for (const j of jobs) j.reject(err);
  }
}

/** The process's one pool: every server and reload shares it. */
export const BCRYPT_POOL = new BcryptPool();
