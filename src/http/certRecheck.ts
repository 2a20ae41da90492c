// Each TLS origin's certificate expiry and when it was last read from a handshake. The probes keep
// one keep-alive connection per node for as long as it is used, so a certificate the node renews in
// place (nginx, Caddy, Envoy reload; Node's setSecureContext) would never be read again: a fresh
// handshake on a connection of its own (no session resumption, closed at once, never given to a
// request) reads it again, at least daily, and hourly once the expiry is near (the warning window).
import type { buildConnector } from 'undici';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/**
 * Within this of the expiry, re-checked hourly: wider than LedgerNodeCertificateExpiring's 14
 * days, so a renewal clears the warning within the hour.
 */
export const NEAR_EXPIRY_MS = 30 * DAY_MS;

interface OriginExpiry {
  /** Unix seconds. */
  expiry: number;
  /** ms (the clock given): when a handshake last showed it. */
  readAt: number;
  /** ms: when the last re-check started; undefined when none runs. */
  checking?: number;
  /** ms: when the last re-check that showed no certificate (unreachable) ended. */
  failedAt?: number;
}

/** How long after a reading the next fresh handshake is due. */
export function recheckAfterMs(expirySeconds: number, wallMs: number): number {
  return expirySeconds * 1000 - wallMs <= NEAR_EXPIRY_MS ? HOUR_MS : DAY_MS;
}

export class CertExpiries {
  private readonly byOrigin = new Map<string, OriginExpiry>();

  /** `now`: ms of the schedule's clock; `wall`: ms since the epoch (expiries are wall times). */
  constructor(
    private readonly now: () => number = () => performance.now(),
    private readonly wall: () => number = Date.now,
  ) {}

  /** Unix seconds of the origin's newest reading. */
  get(origin: string): number | undefined {
    return this.byOrigin.get(origin)?.expiry;
  }

  /** A handshake (the probes' own or a re-check) showed this expiry. */
  note(origin: string, expirySeconds: number): void {
    const e = this.byOrigin.get(origin);
    if (e) {
      e.expiry = expirySeconds;
      e.readAt = this.now();
      e.failedAt = undefined;
    } else this.byOrigin.set(origin, { expiry: expirySeconds, readAt: this.now() });
  }

  forget(origin: string): void {
    this.byOrigin.delete(origin);
  }

  origins(): IterableIterator<string> {
    return this.byOrigin.keys();
  }

  /**
   * Starts a fresh handshake with `connect` (the origin's connector, sessions off, which reports the
   * expiry through note()) when one is due; the socket is closed as soon as it is made.
   */
  recheck(origin: string, connect: () => buildConnector.connector): boolean {
    const e = this.byOrigin.get(origin);
    if (!e || e.checking !== undefined) return false;
    const now = this.now();
    const since = Math.max(e.readAt, e.failedAt ?? -Infinity);
    const wait = e.failedAt !== undefined ? HOUR_MS : recheckAfterMs(e.expiry, this.wall());
    if (now - since < wait) return false;
    e.checking = now;
    const readAt = e.readAt;
    const u = new URL(origin);
    connect()({ hostname: u.hostname, host: u.host, protocol: u.protocol, port: u.port || '443' }, (_err, socket) => {
      socket?.destroy();
      e.checking = undefined;
      // A certificate refused still had its expiry read (tls.ts); nothing read at all: try again in an hour.
      if (e.readAt === readAt) e.failedAt = this.now();
    });
    return true;
  }
}
