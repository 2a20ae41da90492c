// One HTTP exchange through undici's dispatch API: status, headers and up to `maxBytes` of body
// are collected straight from the handler callbacks. undici's request() wraps every answer in a
// Readable stream (read through an async iterator) and needs an AbortSignal for a deadline; at
// fleet scale (five requests per node per interval) that machinery cost more CPU than the
// exchange itself: ~0.45 ms per node-poll (npm run bench). Semantics are request()'s: a body over
// the cap is cut and its connection closed, a failure arrives as undici's own error.
import type { Dispatcher } from 'undici';
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
  private controller: Dispatcher.DispatchController | undefined;
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
    this.controller?.abort(DEADLINE);
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

  onRequestStart(controller: Dispatcher.DispatchController): void {
    if (this.done) return controller.abort(DEADLINE);
    this.controller = controller;
    // Called just before the request is written; a new socket has announced itself by then.
    this.reused = this.connectionBefore !== undefined && this.connection!.current === this.connectionBefore;
  }

  onResponseStart(
    _c: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[]>,
  ): void {
    this.answered = true;
    if (statusCode < 200) return; // informational (100 Continue): the real answer follows
    this.status = statusCode;
    this.headers = headers;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.answered = true;
    if (this.done) return;
    const room = this.maxBytes - this.size;
    if (chunk.length > room) {
      this.add(chunk.subarray(0, room));
      this.truncated = true;
      // The rest stays unread: closing the connection is the only way to be done with it.
      controller.abort(CAP_REACHED);
      return this.finish(CAP_REACHED);
    }
    this.add(chunk);
  }

  onResponseEnd(): void {
    this.finish(this.status === undefined ? new Error('answer ended without a status') : undefined);
  }

  onResponseError(_c: Dispatcher.DispatchController, err: Error): void {
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
