// The one HTTP client for every outbound call (node probes, the agent platform, alert receivers):
// one deadline for the whole exchange, a cap on the body read, no redirect to another origin,
// every failure classified, every message scrubbed of secrets, bodies always consumed or destroyed.
import type { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';
import { redactUrl, type Secrets } from '../redact.js';
import { discard, readBounded } from './body.js';
import { classifyTransportError, statusReason, type HttpFailureReason } from './classify.js';
import { createDispatcher } from './dispatcher.js';
import { parseRetryAfter } from './retryAfter.js';

export interface HttpRequest {
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  /** Must not carry credentials: send them as headers (they would end up in messages otherwise). */
  url: string | URL;
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
}

const MAX_REDIRECTS = 5;

export class HttpClient {
  readonly secrets: Secrets;
  private readonly dispatcher: Dispatcher;
  private readonly owned: boolean;
  private readonly now: () => number;

  constructor(opts: HttpClientOptions) {
    this.secrets = opts.secrets;
    this.owned = !opts.dispatcher;
    this.dispatcher = opts.dispatcher ?? createDispatcher();
    this.now = opts.now ?? Date.now;
  }

  /** Never throws: every failure is an outcome. */
  async send(req: HttpRequest): Promise<HttpOutcome> {
    const t0 = performance.now();
    const elapsed = () => performance.now() - t0;
    // A cleared timer, not AbortSignal.timeout: at fleet scale thousands of those would outlive
    // their requests by the full timeout. undici's own timeouts are per phase and per chunk, so a
    // trickling body would never end without this one deadline.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), req.timeoutMs);
    try {
      const outcome = await this.exchange(req, deadline.signal);
      return { ...outcome, durationMs: elapsed() } as HttpOutcome;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes the pool if this client made it. */
  async close(): Promise<void> {
    if (this.owned) await this.dispatcher.destroy().catch(() => undefined);
  }

  private async exchange(req: HttpRequest, signal: AbortSignal): Promise<Omit<HttpOutcome, 'durationMs'>> {
    let url = new URL(req.url);
    // The path without the query: a query may carry a token.
    const label = req.label ?? `${req.method} ${redactUrl(url.origin)}${url.pathname}`;
    for (let hop = 0; ; hop++) {
      const display = redactUrl(url.origin);
      let res: Dispatcher.ResponseData<unknown>;
      try {
        res = await request(url, {
          dispatcher: this.dispatcher,
          method: req.method,
          headers: req.headers,
          body: req.body,
          signal,
          headersTimeout: req.timeoutMs,
          bodyTimeout: req.timeoutMs,
          // 0 also disables a redirect interceptor composed into an injected dispatcher: this
          // client alone decides what is followed.
          maxRedirections: 0,
        } as Parameters<typeof request>[1]);
      } catch (err) {
        return this.failure(classifyTransportError(err, display, signal.aborted));
      }
      const next = req.redirect === 'same-origin' && hop < MAX_REDIRECTS ? sameOriginTarget(url, res) : undefined;
      if (next) {
        discard(res.body as Readable);
        url = next;
        continue;
      }
      return this.answered(req, label, display, res, signal);
    }
  }

  private async answered(req: HttpRequest, label: string, display: string, res: Dispatcher.ResponseData<unknown>, signal: AbortSignal) {
    let read: { body: Buffer; truncated: boolean };
    try {
      read = await readBounded(res.body as Readable, req.maxBytes);
    } catch (err) {
      return { ...this.failure(classifyTransportError(err, display, signal.aborted)), status: res.statusCode };
    }
    const response: HttpResponse = { status: res.statusCode, headers: res.headers, ...read };
    const reason = statusReason(res.statusCode);
    if (!reason) {
      if (read.truncated) return this.failure({ reason: 'invalid_response', message: `${label}: response exceeds ${req.maxBytes} bytes` }, response);
      return { ok: true as const, response };
    }
    const what = reason === 'redirect' ? `redirect (HTTP ${res.statusCode}) not followed` : reason === 'invalid_response' ? `unexpected HTTP ${res.statusCode}` : `HTTP ${res.statusCode}`;
    const retryAfterMs = parseRetryAfter(res.headers['retry-after'], this.now());
    return this.failure({ reason, message: `${label}: ${what}` }, response, retryAfterMs);
  }

  private failure(f: { reason: HttpFailureReason; message: string }, response?: HttpResponse, retryAfterMs?: number) {
    return {
      ok: false as const,
      reason: f.reason,
      message: this.secrets.scrub(f.message),
      ...(response ? { status: response.status, response } : {}),
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    };
  }
}

/** Where a 3xx points, when that is the same origin; undefined otherwise (not followed). */
function sameOriginTarget(from: URL, res: Dispatcher.ResponseData<unknown>): URL | undefined {
  if (res.statusCode < 300 || res.statusCode >= 400) return undefined;
  const location = res.headers.location;
  if (typeof location !== 'string') return undefined;
  let to: URL;
  try {
    to = new URL(location, from);
  } catch {
    return undefined;
  }
  return to.origin === from.origin && !to.username && !to.password ? to : undefined;
}
