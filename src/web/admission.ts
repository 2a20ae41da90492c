// Keeps HTTP clients from starving the polls: the exporter serves requests and polls nodes on one
// event loop, and a request's work (a status page, the node list, a scrape) runs in one piece.
// Served as they arrive, 200 busy clients ran hundreds of them between two turns of the loop and
// due polls waited seconds. Here a request's work starts only from the queue, one start per turn
// of the loop (setImmediate), so due timers (polls) run between any two; at most `maxActive` run
// at once (awaiting I/O), at most `maxQueued` wait (503 beyond), and one address has at most
// `perClient` running or waiting (429 beyond), so one client cannot take every place.

export interface AdmissionOptions {
  /** Requests whose work runs at once (started and not finished). Default 8. */
  maxActive?: number;
  /** Requests waiting to start; beyond: 503 with Retry-After. Default 512. */
  maxQueued?: number;
  /** Requests one address may have running or waiting; beyond: 429 with Retry-After. Default 32. */
  perClient?: number;
}

export const DEFAULT_ADMISSION: Required<AdmissionOptions> = { maxActive: 8, maxQueued: 512, perClient: 32 };

/** Why a request was not taken: answered at once with Retry-After. */
export interface Refusal {
  refused: 429 | 503;
}

interface Job {
  client: string;
  run(): void;
}

export class Admission {
  private readonly o: Required<AdmissionOptions>;
  private active = 0;
  private readonly queue: Job[] = [];
  private readonly perClient = new Map<string, number>();
  private scheduled = false;

  constructor(opts: AdmissionOptions = {}) {
    this.o = { ...DEFAULT_ADMISSION, ...opts };
  }

  /** Runs `work` when its turn comes; a Refusal (at once) when the client or the queue is full. */
  run<T>(client: string, work: () => Promise<T> | T): Promise<T | Refusal> {
    const mine = this.perClient.get(client) ?? 0;
    if (mine >= this.o.perClient) return Promise.resolve({ refused: 429 });
    if (this.queue.length >= this.o.maxQueued) return Promise.resolve({ refused: 503 });
    this.perClient.set(client, mine + 1);
    return new Promise<T | Refusal>((resolve, reject) => {
      this.queue.push({
        client,
        run: () => {
          this.active++;
          // An async function: a throw in `work` becomes a rejection like any other.
          const p = (async () => work())();
          p.then(resolve, reject).finally(() => this.finish(client));
        },
      });
      this.schedule();
    });
  }

  /** Running and waiting now (diagnostics, tests). */
  get load(): { active: number; queued: number } {
    return { active: this.active, queued: this.queue.length };
  }

  private finish(client: string): void {
    this.active--;
    const n = (this.perClient.get(client) ?? 1) - 1;
    if (n <= 0) this.perClient.delete(client);
    else this.perClient.set(client, n);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.queue.length === 0 || this.active >= this.o.maxActive) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      // One start per turn: the loop's timers (due polls) run before the next.
      if (this.active < this.o.maxActive) this.queue.shift()?.run();
      this.schedule();
    });
  }
}

export function isRefusal(x: unknown): x is Refusal {
  return typeof x === 'object' && x !== null && 'refused' in x;
}
