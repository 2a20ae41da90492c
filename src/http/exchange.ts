// One HTTP exchange through undici's dispatch API: status, headers and up to `maxBytes` of body
// are collected straight from the handler callbacks. undici's request() wraps every answer in a
// Readable stream (read through an async iterator) and needs an AbortSignal for a deadline; at
// fleet scale (five requests per node per interval) that machinery cost more CPU than the
// exchange itself: ~0.45 ms per node-poll (npm run bench). Semantics are request()'s: a body over
// the cap is cut and its connection closed, a failure arrives as undici's own error.
//
// The handler takes undici's raw callbacks (onConnect, onHeaders, onData, onComplete, onError), the
// ones its Client calls itself: a handler of the newer kind (onRequestStart...) is wrapped per
// exchange in an adapter and a controller (three objects more per request). The headers are parsed
// by undici's own parseHeaders, as its adapter does, so an answer's headers are the same.
import type { Dispatcher } from 'undici';
import { parseHeaders } from '../deps/undici.js';
import type { ConnectionLog, OriginConnection } from './connections.js';
import type { Deadline, DeadlineWatcher } from './deadlines.js';
import type { Destination } from './destination.js';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** True when the body was cut at `maxBytes` (the connection was closed). */
  truncated: boolean;
}

export interface ExchangeRequest {
  method: Dispatcher.HttpMethod;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  timeoutMs: number;
  maxBytes: number;
}

/** A failed exchange: undici's error, and the status when headers had arrived. */
export class ExchangeError extends Error {
  constructor(
    readonly error: unknown,
    readonly status?: number,
    /** Nothing of an answer arrived, and the request went out on a connection opened before it. */
    readonly silentOnReusedSocket = false,
    /** A 5xx whose body then failed (timed out, cut): what arrived of it, kept as evidence. */
    readonly partial?: Answer,
  ) {
    super('exchange failed');
  }
}

const DEADLINE = new Error('deadline passed');
const CAP_REACHED = new Error('body cap reached');
const EMPTY = Buffer.alloc(0);

/** The dispatch handler of one exchange: collects the answer and settles once. */
class Collector implements Dispatcher.DispatchHandler, DeadlineWatcher {
  /** The body as it came: most answers arrive in one chunk, kept as is (no array, no copy). */
  private first: Buffer | undefined;
  private more: Buffer[] | undefined;
  private size = 0;
  private status: number | undefined;
  private headers: Answer['headers'] = {};
  private truncated = false;
  private done = false;
  /** undici's abort of this request, once it started; dropped when used (it is called at most once). */
  private abort: ((err?: Error) => void) | undefined;
  /** The origin's connection when the exchange began, and whether the request was written on it. */
  private readonly connectionBefore: number | undefined;
  private reused = false;
  private answered = false;

  constructor(
    private readonly maxBytes: number,
    private readonly deadline: Deadline,
    private readonly resolve: (a: Answer) => void,
    private readonly reject: (e: ExchangeError) => void,
    private readonly connection: OriginConnection | undefined,
  ) {
    deadline.watch(this);
    this.connectionBefore = connection?.current;
  }

  /**
   * Queued or connecting requests have no abort handle yet: the caller hears at once, undici drops the request when it
   * would start.
   */
  deadlinePassed(): void {
    this.abortWith(DEADLINE);
    this.finish(DEADLINE);
  }

  finish(err: unknown): void {
    if (this.done) return;
    this.done = true;
    this.deadline.watch(undefined);
    if (err === undefined || (err === CAP_REACHED && this.truncated)) {
      this.resolve({ status: this.status!, headers: this.headers, body: this.body(), truncated: this.truncated });
    } else {
      const partial =
        this.status !== undefined && this.status >= 500
          ? { status: this.status, headers: this.headers, body: this.body(), truncated: true }
          : undefined;
      this.reject(new ExchangeError(err, this.status, this.reused && !this.answered, partial));
    }
  }

  private abortWith(err: Error): void {
    const abort = this.abort;
    this.abort = undefined;
    abort?.(err);
  }

  private body(): Buffer {
    if (this.more) return Buffer.concat([this.first!, ...this.more], this.size);
    // A chunk is a view of the socket's read, which Node allocates for that read alone.
    return this.first ?? EMPTY;
  }

  private add(chunk: Buffer): void {
    if (this.first === undefined) this.first = chunk;
    else (this.more ??= []).push(chunk);
    this.size += chunk.length;
  }

  onConnect(abort: (err?: Error) => void): void {
    if (this.done) return abort(DEADLINE);
    this.abort = abort;
    // Called just before the request is written; a new socket has announced itself by then.
    this.reused = this.connectionBefore !== undefined && this.connection!.current === this.connectionBefore;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    this.answered = true;
    if (statusCode < 200) return true; // informational (100 Continue): the real answer follows
    this.status = statusCode;
    this.headers = parseHeaders(rawHeaders);
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.answered = true;
    if (this.done) return true;
    const room = this.maxBytes - this.size;
    if (chunk.length > room) {
      this.add(chunk.subarray(0, room));
      this.truncated = true;
      // The rest stays unread: closing the connection is the only way to be done with it.
      this.abortWith(CAP_REACHED);
      this.finish(CAP_REACHED);
      return true;
    }
    this.add(chunk);
    return true;
  }

  onComplete(): void {
    this.finish(this.status === undefined ? new Error('answer ended without a status') : undefined);
  }

  onError(err: Error): void {
    this.finish(err);
  }
}

/** Resolves with the answer (any status); rejects with an ExchangeError. */
export function exchange(
  dispatcher: Dispatcher,
  to: Destination,
  req: ExchangeRequest,
  deadline: Deadline,
  connections?: ConnectionLog,
): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const handler = new Collector(req.maxBytes, deadline, resolve, reject, connections && to.connectionIn(connections));
    const options = {
      origin: to.origin,
      path: to.path,
      method: req.method,
      headers: req.headers,
      body: req.body,
      // The deadline is the exchange's one timeout: undici's per-phase ones start when the request
      // is written (later than the deadline), so never end an exchange first, and cost a timer
      // made and dropped per request. 0 turns them off.
      headersTimeout: 0,
      bodyTimeout: 0,
      // 0 also disables a redirect interceptor composed into an injected dispatcher: the client
      // alone decides what is followed.
      maxRedirections: 0,
    };
    try {
      dispatcher.dispatch(options, handler);
    } catch (err) {
      handler.finish(err);
    }
  });
}
