// A request target parsed once. Callers that send to the same URL over and over (a node's
// probes, several times per interval) keep one, so no request parses a URL, derives its origin
// or redacts it for messages again.
import { redactUrl } from '../redact.js';

export class Destination {
  readonly origin: string;
  /** Path and query, as sent on the request line. */
  readonly path: string;
  /** The origin as messages show it (credentials removed). */
  readonly display: string;

  constructor(readonly url: URL) {
    this.origin = url.origin;
    this.path = url.pathname + url.search;
    this.display = redactUrl(this.origin);
  }

  static of(url: string | URL | Destination): Destination {
    if (url instanceof Destination) return url;
    return new Destination(url instanceof URL ? url : new URL(url));
  }
}
