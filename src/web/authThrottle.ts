// Slows a client that keeps sending wrong passwords: after FREE_FAILURES wrong ones for a user
// from one address, each further try waits twice as long as the last (1 s up to 60 s) and is
// answered 429 with Retry-After meanwhile, with no bcrypt run. Keyed by address and user, so a
// flood against one name neither locks out other users of that address nor, from elsewhere, the
// user herself; a right password that was checked lately is served from the cache before this.
// Also bounds the compares one address has running at once. Both maps are bounded.

export interface ThrottleOptions {
  freeFailures?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** A key not failing for this long is forgotten. */
  forgetAfterMs?: number;
  /** Keys kept at most (oldest dropped first). */
  maxKeys?: number;
  /** Distinct password checks one address may have running at once. */
  perClientInFlight?: number;
}

const DEFAULTS: Required<ThrottleOptions> = {
  freeFailures: 5,
  baseDelayMs: 1_000,
  maxDelayMs: 60_000,
  forgetAfterMs: 15 * 60_000,
  maxKeys: 10_000,
  perClientInFlight: 2,
};

interface Failures {
  count: number;
  lastAt: number;
}

export class AuthThrottle {
  private readonly o: Required<ThrottleOptions>;
  private readonly failures = new Map<string, Failures>();
  private readonly inFlight = new Map<string, number>();

  constructor(
    private readonly now: () => number,
    opts: ThrottleOptions = {},
  ) {
    this.o = { ...DEFAULTS, ...opts };
  }

  /** Milliseconds this client must wait before trying this user again; 0: it may try now. */
  waitMs(client: string, user: string): number {
    const key = `${client}\0${user}`;
    const f = this.failures.get(key);
    if (!f) return 0;
    const since = this.now() - f.lastAt;
    if (since > this.o.forgetAfterMs) {
      this.failures.delete(key);
      return 0;
    }
    const over = f.count - this.o.freeFailures;
    if (over < 0) return 0;
    const delay = Math.min(this.o.maxDelayMs, this.o.baseDelayMs * 2 ** Math.min(over, 30));
    return Math.max(0, delay - since);
  }

  failed(client: string, user: string): void {
    const key = `${client}\0${user}`;
    const f = this.failures.get(key);
    this.failures.delete(key); // re-inserted last: the Map's order is the eviction order
    this.failures.set(key, { count: (f?.count ?? 0) + 1, lastAt: this.now() });
    if (this.failures.size > this.o.maxKeys) {
      const oldest = this.failures.keys().next().value;
      if (oldest !== undefined) this.failures.delete(oldest);
    }
  }

  succeeded(client: string, user: string): void {
    this.failures.delete(`${client}\0${user}`);
  }

  /** Takes a check slot for the client; false when it has its share running already. */
  enter(client: string): boolean {
    const n = this.inFlight.get(client) ?? 0;
    if (n >= this.o.perClientInFlight) return false;
    this.inFlight.set(client, n + 1);
    return true;
  }

  leave(client: string): void {
    const n = (this.inFlight.get(client) ?? 1) - 1;
    if (n <= 0) this.inFlight.delete(client);
    else this.inFlight.set(client, n);
  }
}
