// A request target parsed once. Callers that send to the same URL over and over (a node's
// probes, several times per interval) keep one, so no request parses a URL, derives its origin
// or redacts it for messages again.
import { redactUrl } from '../redact.js';
import type { ConnectionLog, OriginConnection } from './connections.js';

export class Destination {
  readonly origin: string;
  /** Path and query, as sent on the request line. */
  readonly path: string;
  /** The origin as messages show it (credentials removed). */
  readonly display: string;
  /**
   * The whole URL, only when origin + path do not say it all (credentials, a fragment). A parsed
   * URL object is ~240 bytes of heap; a fleet keeps one Destination per node and request (50,000
   * at 10,000 nodes), and only a redirect needs the URL again.
   */
  private readonly href: string | undefined;

  constructor(url: URL) {
    this.origin = url.origin;
    this.path = url.pathname + url.search;
    this.display = redactUrl(this.origin);
    this.href = url.href === this.origin + this.path ? undefined : url.href;
  }

  /** The URL sent to (parsed again: callers use it rarely, for a redirect or a message). */
  get url(): URL {
    return new URL(this.href ?? this.origin + this.path);
  }

  private log: ConnectionLog | undefined;
  private connection: OriginConnection | undefined;

  /** The origin's entry in a pool's connection log, looked up once per log (not per request). */
  connectionIn(log: ConnectionLog): OriginConnection {
    if (this.log !== log) {
      this.log = log;
      this.connection = log.entry(this.origin);
    }
    return this.connection!;
  }

  static of(url: string | URL | Destination): Destination {
    if (url instanceof Destination) return url;
    return new Destination(url instanceof URL ? url : new URL(url));
  }
}
