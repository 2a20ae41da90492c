// The one HTTP client for every outbound call (node probes, the agent platform, alert receivers):
// one deadline for the whole exchange, a cap on the body read, no redirect to another origin,
// every failure classified, every message scrubbed of secrets, bodies always consumed or destroyed,
// and an idempotent request that a reused keep-alive connection dropped unanswered sent once more.
import type { Dispatcher } from 'undici';
import type { Secrets } from '../redact.js';
import { classifyTransportError, errorCode, statusReason, type HttpFailureReason } from './classify.js';
import { ConnectionLog } from './connections.js';
import { Destination } from './destination.js';
import type { NodeTarget } from '../domain.js';
import { createDispatcher, idleKeepMs, NodeDispatcher, nodesPerOrigin, tlsPerOrigin } from './dispatcher.js';
import { Deadlines, type DeadlineClock } from './deadlines.js';
import { exchange, ExchangeError, type Answer } from './exchange.js';
import { parseRetryAfter } from './retryAfter.js';

export interface HttpRequest {
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  /**
   * Must not carry credentials: send them as headers (they would end up in messages otherwise).
   * A Destination is a URL parsed once, for requests sent over and over.
   */
  url: string | URL | Destination;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** One deadline for connect, headers and body together. */
  timeoutMs: number;
  /** Bytes of body read at most; a 2xx answer over the cap is an invalid response. */
  maxBytes: number;
  /** `none` (default): a 3xx is a `redirect` failure. `same-origin`: followed, never to another origin. */
  redirect?: 'none' | 'same-origin';
  /** Names the request in messages, e.g. "GET /health"; default "<method> <url without credentials>". */
  label?: string;
  /**
   * Safe to send twice (default: GET and HEAD only). An idempotent request that got nothing back
   * on a reused keep-alive connection (the server closed it as the request went out) is sent
   * once more, on a new connection, within the same deadline.
   */
  idempotent?: boolean;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** True when the body was cut at `maxBytes`. */
  truncated: boolean;
}

export type HttpOutcome =
  | { ok: true; response: HttpResponse; durationMs: number }
  | {
      ok: false;
      reason: HttpFailureReason;
      /** Safe to log: scrubbed, no credentials. */
      message: string;
      durationMs: number;
      /** The status, when one was received (also when its body then failed). */
      status?: number;
      /** Set when the server answered with a status and its body was read (evidence needs it). */
      response?: HttpResponse;
      /** The server's Retry-After, in ms from the end of the exchange (capped at 1 h). */
      retryAfterMs?: number;
    };

export interface HttpClientOptions {
  secrets: Secrets;
  /** Injected pool (tests, or a shared one); default: one made by createDispatcher(), closed by close(). */
  dispatcher?: Dispatcher;
  now?: () => number;
  /** Clock and timers of the exchanges' deadlines (tests); default performance.now and setTimeout. */
  deadlineClock?: DeadlineClock;
}

/** What the pool needs of a node to reach it: its URL, connection settings and polling pace. */
export type NodeConnection = Pick<NodeTarget, 'url' | 'intervalMs' | 'timeoutMs' | 'tls'>;

const MAX_REDIRECTS = 5;

/** Errors of a connection that was open: closed or reset under the request (not refused, not a timeout). */
const CLOSED_UNDER_REQUEST = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

export class HttpClient {
  readonly secrets: Secrets;
  private readonly dispatcher: Dispatcher;
  private readonly owned: boolean;
  private readonly now: () => number;
  private readonly connections: ConnectionLog;
  private readonly deadlines: Deadlines;
  private closed = false;

  constructor(opts: HttpClientOptions) {
    this.secrets = opts.secrets;
    this.owned = !opts.dispatcher;
    this.dispatcher = opts.dispatcher ?? createDispatcher();
    this.now = opts.now ?? Date.now;
    this.connections = ConnectionLog.attach(this.dispatcher);
    this.deadlines = new Deadlines(opts.deadlineClock);
  }

  /** Never throws: every failure is an outcome. */
  async send(req: HttpRequest): Promise<HttpOutcome> {
    const t0 = performance.now();
    // One deadline for the whole exchange, redirects included (not AbortSignal.timeout: at fleet
    // scale thousands of those would outlive their requests by the full timeout). undici's own
    // timeouts are per phase and per chunk, so a trickling body would never end without it.
    const deadline = this.deadlines.start(req.timeoutMs, t0);
    let to = Destination.of(req.url);
    let retried = false;
    let outcome: HttpOutcome;
    for (let hop = 0; ; hop++) {
      let answer: Answer;
      try {
        answer = await exchange(this.dispatcher, to, req, deadline, this.connections);
      } catch (err) {
        const e = err instanceof ExchangeError ? err : new ExchangeError(err);
        if (
          !retried &&
          !deadline.passed &&
          e.silentOnReusedSocket &&
          isIdempotent(req) &&
          CLOSED_UNDER_REQUEST.has(errorCode(e.error))
        ) {
          retried = true;
          hop--;
          continue;
        }
        const transport = classifyTransportError(e.error, to.display, deadline.passed);
        if (e.partial) {
          // The node answered 5xx, then its body failed: still a 5xx (with evidence), not a timeout.
          outcome = this.failure(
            {
              reason: 'http_5xx',
              message: `${labelOf(req, to)}: HTTP ${e.partial.status}, body cut short (${transport.message})`,
            },
            e.partial,
          );
          break;
        }
        const failure = this.failure(transport);
        if (e.status !== undefined) failure.status = e.status;
        outcome = failure;
        break;
      }
      const next = req.redirect === 'same-origin' && hop < MAX_REDIRECTS ? sameOriginTarget(to, answer) : undefined;
      if (!next) {
        outcome = this.answered(req, to, answer);
        break;
      }
      to = new Destination(next);
    }
    deadline.clear();
    outcome.durationMs = performance.now() - t0;
    return outcome;
  }

  /**
   * Fits the pool to the nodes it sends to, whatever sends (probes, fan-out reads), as the config
   * gives them: each node's connection settings (its `tls`) are taken from the node here, so no
   * caller can drop them. One socket per node behind each origin, idle sockets kept past the
   * longest gap between two requests to a node (its interval, or `everyMs` when requests are rarer).
   * A pool of another kind keeps its own policy.
   */
  fitNodes(nodes: readonly NodeConnection[], opts: { everyMs?: number } = {}): void {
    if (!(this.dispatcher instanceof NodeDispatcher)) return;
    const every = opts.everyMs ?? 0;
    this.dispatcher.setConnectionsPerOrigin(nodesPerOrigin(nodes.map((n) => n.url)));
    this.dispatcher.setTlsPerOrigin(tlsPerOrigin(nodes));
    this.dispatcher.keepIdleFor(
      idleKeepMs(nodes.map((n) => ({ intervalMs: Math.max(n.intervalMs, every), timeoutMs: n.timeoutMs }))),
    );
  }

  /**
   * Unix seconds: the earliest certificate expiry of `origin`'s newest TLS connection; undefined for a pool of another
   * kind.
   */
  certExpiry(origin: string): number | undefined {
    return this.dispatcher instanceof NodeDispatcher ? this.dispatcher.certExpiry(origin) : undefined;
  }

  /** Re-reads `origin`'s certificate on a fresh handshake when one is due (certRecheck.ts); no-op for other pools. */
  recheckCertificate(origin: string): void {
    if (this.dispatcher instanceof NodeDispatcher) this.dispatcher.recheckCertificate(origin);
  }

  /** What fitNodes set for `origin` (diagnostics); undefined for a pool of another kind. */
  fitOf(origin: string): { idleKeepMs: number; sockets: number } | undefined {
    return this.dispatcher instanceof NodeDispatcher ? this.dispatcher.fit(origin) : undefined;
  }

  /** Closes the pool if this client made it. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.connections.release();
    if (this.owned) await this.dispatcher.destroy().catch(() => undefined);
  }

  private answered(req: HttpRequest, to: Destination, answer: Answer): HttpOutcome {
    const response: HttpResponse = answer;
    const reason = statusReason(answer.status);
    if (!reason) {
      if (answer.truncated)
        return this.failure(
          { reason: 'invalid_response', message: `${labelOf(req, to)}: response exceeds ${req.maxBytes} bytes` },
          response,
        );
      return { ok: true, response, durationMs: 0 };
    }
    const what =
      reason === 'redirect'
        ? `redirect (HTTP ${answer.status}) not followed`
        : reason === 'invalid_response'
          ? `unexpected HTTP ${answer.status}`
          : `HTTP ${answer.status}`;
    const retryAfterMs = parseRetryAfter(answer.headers['retry-after'], this.now());
    return this.failure({ reason, message: `${labelOf(req, to)}: ${what}` }, response, retryAfterMs);
  }

  private failure(
    f: { reason: HttpFailureReason; message: string },
    response?: HttpResponse,
    retryAfterMs?: number,
  ): HttpOutcome & { ok: false } {
    const out: HttpOutcome & { ok: false } = {
      ok: false,
      reason: f.reason,
      message: this.secrets.scrub(f.message),
      durationMs: 0,
    };
    if (response) {
      out.status = response.status;
      out.response = response;
    }
    if (retryAfterMs !== undefined) out.retryAfterMs = retryAfterMs;
    return out;
  }
}

/** The request as messages name it; the path without the query (a query may carry a token). */
function labelOf(req: HttpRequest, to: Destination): string {
  return req.label ?? `${req.method} ${to.display.replace(/\/$/, '')}${to.url.pathname}`;
}

function isIdempotent(req: HttpRequest): boolean {
  return req.idempotent ?? (req.method === 'GET' || req.method === 'HEAD');
}

/** Where a 3xx points, when that is the same origin; undefined otherwise (not followed). */
function sameOriginTarget(from: Destination, res: Answer): URL | undefined {
  if (res.status < 300 || res.status >= 400) return undefined;
  const location = res.headers.location;
  if (typeof location !== 'string') return undefined;
  let to: URL;
  try {
    to = new URL(location, from.url);
  } catch {
    return undefined;
  }
  return to.origin === from.origin && !to.username && !to.password ? to : undefined;
}
