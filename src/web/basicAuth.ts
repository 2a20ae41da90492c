// HTTP basic auth against bcrypt hashes (exporter-toolkit `basic_auth_users`). bcrypt is slow on
// purpose, so a successful check is cached briefly under a digest of the header: a Prometheus
// scraping every 15s pays bcrypt once per TTL, not once per scrape. Failures are never cached.
import { createHash } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { SYSTEM_CLOCK } from '../clock/clock.js';

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

/** True when no users are configured or the header carries a valid user and password. */
export async function verifyBasicAuth(
  users: Map<string, string> | undefined,
  authorization: string | undefined,
  opts: { now?: number; compare?: (password: string, hash: string) => Promise<boolean> } = {},
): Promise<boolean> {
  // Monotonic: a step of the wall clock neither keeps a cached check longer nor drops it early.
  const now = opts.now ?? SYSTEM_CLOCK.mono();
  const compare = opts.compare ?? bcrypt.compare;
  if (!users || users.size === 0) return true;
  const creds = parseBasicAuth(authorization);
  if (!creds) return false;
  const stored = users.get(creds.user);

  let cache = caches.get(users);
  if (!cache) caches.set(users, (cache = new Map<string, number>()));
  // The digest covers the stored hash too, so a changed hash never matches an old entry.
  const digest = createHash('sha256')
    .update(`${authorization}\0${stored ?? ''}`)
    .digest('base64');
  const expires = cache.get(digest);
  if (stored !== undefined && expires !== undefined && expires > now) return true;
  if (expires !== undefined) cache.delete(digest);

  // bcryptjs compares the computed hash in constant time.
  const ok = await compare(creds.password, stored ?? DUMMY_HASH);
  if (!ok || stored === undefined) return false;

  if (cache.size >= AUTH_CACHE_MAX) {
    // Oldest first (Map keeps insertion order).
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  cache.set(digest, now + AUTH_CACHE_TTL_MS);
  return true;
}
