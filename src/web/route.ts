// What a route of the exporter's HTTP server answers and how one is declared: the server and every
// module that adds pages or APIs speak these types, so the features need not import the server.
import type { IncomingHttpHeaders } from 'node:http';

export interface Reply {
  status: number;
  contentType: string;
  body: string | Buffer;
  headers?: Record<string, string>;
  /** A body sent as it is made, after the headers (no Content-Length): `body` is then not sent. */
  stream?: ReplyStream;
}

/** Where a streamed body goes: the response. */
export interface StreamOut {
  /** `done` once `bytes` are no longer read (sent, or the connection is gone). */
  write(bytes: Buffer, done: () => void): void;
  end(): void;
  /** The body failed after the headers: the connection is cut, so the client never takes it for whole. */
  destroy(err: Error): void;
}

export interface ReplyStream {
  /** Sends the body to `out`, once. */
  pipe(out: StreamOut): void;
}

export interface RouteRequest {
  pathname: string;
  params: URLSearchParams;
  headers: IncomingHttpHeaders;
}

/**
 * A GET handler for any path (the older form, still accepted by the server): answers the
 * requests it owns, undefined for any other path, so the next route is tried.
 */
export type Route = (req: RouteRequest) => Promise<Reply | undefined> | Reply | undefined;

/** Methods a route may declare; HEAD is answered by every GET route. */
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * `read`: follows the server's own auth (basic auth of --web.config.file when configured).
 * `write`: also needs a basic-auth user listed in `alerting.api.writers`, and a browser request
 * must be same-origin and carry the write token (writeAccess.ts).
 */
export type Access = 'read' | 'write';

/** How a route reads its request body; without one the body is ignored. */
export interface BodySpec {
  /** `json`: parsed (400 with the reason when it is not JSON; 415 unless sent as JSON); `raw`: the bytes. */
  kind: 'json' | 'raw';
  /** Larger bodies are answered 413. Default DEFAULT_MAX_BODY_BYTES. */
  maxBytes?: number;
}

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

export interface EndpointRequest {
  method: Method;
  /** The path as sent (percent-encoded), after dot segments are resolved. */
  pathname: string;
  /** The query string. */
  params: URLSearchParams;
  /** The path's `{name}` parameters, percent-decoded. */
  path: Readonly<Record<string, string>>;
  headers: IncomingHttpHeaders;
  /** The parsed JSON (kind json), the bytes (kind raw), or undefined (no BodySpec). */
  body: unknown;
  /** The basic-auth user the request was let in as; undefined when basic auth is off. */
  user: string | undefined;
}

/** What a write route's handler gets: the user is always known (the writer who acts). */
export interface WriteRequest extends EndpointRequest {
  user: string;
}

type Answer = Promise<Reply | undefined> | Reply | undefined;

interface EndpointBase {
  method: Method;
  /** Literal segments and `{name}` parameters, e.g. `/api/v2/silence/{id}`; `*` alone matches every path. */
  path: string;
  body?: BodySpec;
  /**
   * Tiny constant work (/healthz, /readyz): answered at once, outside the request queue, so a
   * liveness probe is never refused or delayed by client load (admission.ts).
   */
  light?: boolean;
}

export interface ReadEndpoint extends EndpointBase {
  access?: 'read';
  /** undefined: not answered here, the next route for this path is tried. */
  handle(req: EndpointRequest): Answer;
}

export interface WriteEndpoint extends EndpointBase {
  access: 'write';
  handle(req: WriteRequest): Answer;
}

/** One route: a method, a path pattern, an access level and a handler. */
export type Endpoint = ReadEndpoint | WriteEndpoint;

/** A GET route (HEAD included). */
export function get(path: string, handle: ReadEndpoint['handle']): ReadEndpoint {
  return { method: 'GET', path, handle };
}

/** A write route (POST, PUT, PATCH or DELETE) whose handler gets the authenticated user. */
export function write(
  method: Exclude<Method, 'GET'>,
  path: string,
  handle: WriteEndpoint['handle'],
  body?: BodySpec,
): WriteEndpoint {
  return body ? { method, path, access: 'write', body, handle } : { method, path, access: 'write', handle };
}

/** A JSON reply (newline-terminated). */
export function jsonReply(status: number, body: unknown, headers?: Record<string, string>): Reply {
  const reply: Reply = { status, contentType: 'application/json; charset=utf-8', body: `${JSON.stringify(body)}\n` };
  if (headers) reply.headers = headers;
  return reply;
}
