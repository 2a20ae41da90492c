// HTTP basic auth against bcrypt hashes (exporter-toolkit `basic_auth_users`). bcrypt is slow on
// purpose, so a successful check is cached briefly under a digest of the header: a Prometheus
// scraping every 15s pays bcrypt once per TTL, not once per scrape. Failures are never cached.
// Compares run on a worker thread (bcryptPool.ts), never on the event loop.
import { createHash } from 'node:crypto';
import { SYSTEM_CLOCK } from '../clock/clock.js';
import { AuthThrottle, type ThrottleOptions } from './authThrottle.js';
import { BCRYPT_POOL, CompareBusyError } from './bcryptPool.js';

/** Compared against when the user is unknown, so unknown and known users cost the same time. */
const DUMMY_HASH = '$2b$10$rIJq7waxWi5nXgL1MDEkLOAkC3r5gz/ByjweqwrNEafrNX7fNtUie';

export const AUTH_CACHE_TTL_MS = 60_000;
const AUTH_CACHE_MAX = 256;

// Keyed by the users map, so a reloaded web config starts with an empty cache.
const caches = new WeakMap<Map<string, string>, Map<string, number>>();

export const WWW_AUTHENTICATE = 'Basic realm="ledger-fleet-exporter", charset="UTF-8"';

/** Splits a `Basic` Authorization header; undefined when malformed. */
export function parseBasicAuth(authorization: string | undefined): { user: string; password: string } | undefined {
  const m = /^Basic[ \t]+([A-Za-z0-9+/]+={0,2})[ \t]*$/i.exec(authorization ?? '');
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Where a successful check is remembered, and what it is remembered under. */
function cacheSlot(users: Map<string, string>, authorization: string | undefined, stored: string | undefined) {
  let cache = caches.get(users);
  if (!cache) caches.set(users, (cache = new Map<string, number>()));
  // The digest covers the stored hash too, so a changed hash never matches an old entry.
  const digest = createHash('sha256')
    .update(`${authorization}\0${stored ?? ''}`)
    .digest('base64');
  return { cache, digest };
}

/** True when this header was checked lately and is still right (monotonic `now`). */
function cachedOk(cache: Map<string, number>, digest: string, stored: string | undefined, now: number): boolean {
  const expires = cache.get(digest);
  if (stored !== undefined && expires !== undefined && expires > now) return true;
  if (expires !== undefined) cache.delete(digest);
  return false;
}

function remember(cache: Map<string, number>, digest: string, now: number): void {
  if (cache.size >= AUTH_CACHE_MAX) {
    // Oldest first (Map keeps insertion order).
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  cache.set(digest, now + AUTH_CACHE_TTL_MS);
}

/** The compare every check uses unless told otherwise: on the worker thread, never the event loop. */
const poolCompare = (password: string, hash: string) => BCRYPT_POOL.compare(password, hash);

/** True when no users are configured or the header carries a valid user and password. */
export async function verifyBasicAuth(
  users: Map<string, string> | undefined,
  authorization: string | undefined,
  opts: { now?: number; compare?: (password: string, hash: string) => Promise<boolean> } = {},
): Promise<boolean> {
  // Monotonic: a step of the wall clock neither keeps a cached check longer nor drops it early.
  const now = opts.now ?? SYSTEM_CLOCK.mono();
  const compare = opts.compare ?? poolCompare;
  if (!users || users.size === 0) return true;
  const creds = parseBasicAuth(authorization);
  if (!creds) return false;
  const stored = users.get(creds.user);
  const { cache, digest } = cacheSlot(users, authorization, stored);
  if (cachedOk(cache, digest, stored, now)) return true;
  // bcryptjs compares the computed hash in constant time.
  const ok = await compare(creds.password, stored ?? DUMMY_HASH);
  if (!ok || stored === undefined) return false;
  remember(cache, digest, now);
  return true;
}

export type AuthVerdict =
  | { status: 200 }
  | { status: 401 }
  /** 429: this client failed too often lately or has its share of checks running; 503: the checks are full. */
  | { status: 429 | 503; retryAfterS: number };

/**
 * Basic auth for the server: verifyBasicAuth's cache and constant-cost compare, plus what keeps a
 * flood of wrong passwords from taking the process: compares run on the worker (bcryptPool.ts),
 * a bounded number at once; repeated failures per client wait (authThrottle.ts); the same header
 * checked by several requests at once (a page and its assets) runs one compare.
 */
export class BasicAuthGuard {
  private readonly running = new Map<string, Promise<boolean>>();
  private readonly throttle: AuthThrottle;
  private readonly compare: (password: string, hash: string) => Promise<boolean>;

  constructor(
    opts: { compare?: (password: string, hash: string) => Promise<boolean>; throttle?: ThrottleOptions } = {},
    private readonly now: () => number = () => SYSTEM_CLOCK.mono(),
  ) {
    this.compare = opts.compare ?? poolCompare;
    this.throttle = new AuthThrottle(now, opts.throttle);
  }

  async check(
    users: Map<string, string> | undefined,
    authorization: string | undefined,
    client: string,
  ): Promise<AuthVerdict> {
    if (!users || users.size === 0) return { status: 200 };
    const creds = parseBasicAuth(authorization);
    // No credentials is how a browser learns to ask for them: answered, never counted as a failure.
    if (!creds) return { status: 401 };
    const stored = users.get(creds.user);
    const { cache, digest } = cacheSlot(users, authorization, stored);
    if (cachedOk(cache, digest, stored, this.now())) {
      this.throttle.succeeded(client, creds.user);
      return { status: 200 };
    }
    const wait = this.throttle.waitMs(client, creds.user);
    if (wait > 0) return { status: 429, retryAfterS: Math.ceil(wait / 1000) };
    let check = this.running.get(digest);
    const own = check === undefined;
    if (!check) {
      if (!this.throttle.enter(client)) return { status: 429, retryAfterS: 1 };
      check = this.compare(creds.password, stored ?? DUMMY_HASH).then((ok) => ok && stored !== undefined);
      this.running.set(digest, check);
    }
    let ok: boolean;
    try {
      ok = await check;
    } catch (err) {
      if (err instanceof CompareBusyError) return { status: 503, retryAfterS: 1 };
      throw err;
    } finally {
      if (own) {
        this.running.delete(digest);
        this.throttle.leave(client);
      }
    }
    if (!ok) {
      if (own) this.throttle.failed(client, creds.user);
      return { status: 401 };
    }
    this.throttle.succeeded(client, creds.user);
    remember(cache, digest, this.now());
    return { status: 200 };
  }
}
