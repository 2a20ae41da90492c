// The method-aware router of the exporter's HTTP server: routes declared by method and path
// pattern (route.ts), tried in order; HEAD answered by GET routes; 405 with the path's own `Allow`;
// write routes let through only by the write gate (writeAccess.ts); request bodies read within a
// size limit (413), JSON parsed with the reason of a failure in the 400.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Admission, isRefusal, type AdmissionOptions } from './admission.js';
import { parseBasicAuth } from './basicAuth.js';
import {
  DEFAULT_MAX_BODY_BYTES,
  type BodySpec,
  type Endpoint,
  type Method,
  type Reply,
  type ReplyStream,
  type Route,
} from './route.js';

/** Longest request target we accept; everything we serve fits in far less. */
const MAX_URL_LENGTH = 2048;
const METHOD_ORDER: readonly string[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
const TEXT = 'text/plain; charset=utf-8';

/** Lets a write through as `user`, or the refusal to send. */
export type WriteGate = (req: IncomingMessage) => { user: string } | Reply;

export interface RouterOptions {
  /** Tried in order; a bare Route function is a GET route for every path. */
  routes: readonly (Endpoint | Route)[];
  /** Decides every write; without one every write is refused. */
  writeGate?: WriteGate;
  /** Bounds on the requests served at once and waiting (client load must not starve polls). */
  admission?: AdmissionOptions;
}

interface Compiled {
  endpoint: Endpoint;
  /** undefined: every path. */
  segments?: string[];
}

export function send(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string | Buffer,
  head: boolean,
  extra: Record<string, string> = {},
): void {
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  // nosniff on every answer: a JSON answer carrying a node's text must never be read as a page.
  const headers = {
    'content-type': contentType,
    'content-length': String(length),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  };
  res.writeHead(status, { ...headers, ...extra });
  res.end(head ? undefined : body);
}

/**
 * A streamed reply: the headers now, the body as it comes (chunked). HEAD answers with the length
 * GET would send, once the body was made (and dropped).
 */
function sendStream(res: ServerResponse, reply: Reply & { stream: ReplyStream }, head: boolean): void {
  const headers = {
    'content-type': reply.contentType,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  };
  if (head) {
    let length = 0;
    return reply.stream.pipe({
      write: (bytes, done) => {
        length += bytes.length;
        done();
      },
      end: () => {
        res.writeHead(reply.status, { ...headers, 'content-length': String(length), ...reply.headers });
        res.end();
      },
      destroy: () => void res.destroy(),
    });
  }
  res.writeHead(reply.status, { ...headers, ...reply.headers });
  reply.stream.pipe({
    write: (bytes, done) => void res.write(bytes, () => done()),
    end: () => void res.end(),
    destroy: () => void res.destroy(),
  });
}

function compile(entry: Endpoint | Route): Compiled {
  if (typeof entry === 'function') {
    const handle = entry;
    return { endpoint: { method: 'GET', path: '*', handle: (r) => handle(r) } };
  }
  if (entry.path === '*') return { endpoint: entry };
  if (!entry.path.startsWith('/')) throw new Error(`route path must start with "/": ${entry.path}`);
  return { endpoint: entry, segments: entry.path.split('/').slice(1) };
}

/** The path's parameters when `pathname` matches; undefined otherwise (or when a parameter is not valid %-encoding). */
function match(c: Compiled, pathname: string): Record<string, string> | undefined {
  if (!c.segments) return {};
  const parts = pathname.split('/').slice(1);
  if (parts.length !== c.segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const want = c.segments[i]!;
    const got = parts[i]!;
    if (want.startsWith('{') && want.endsWith('}')) {
      if (got === '') return undefined;
      try {
        params[want.slice(1, -1)] = decodeURIComponent(got);
      } catch {
        return undefined;
      }
    } else if (want !== got) return undefined;
  }
  return params;
}

/**
 * The request target as a URL. An origin-form target ("/...") is all path: resolved against a
 * base, "//metrics" would name host "metrics" with path "/" (the status page).
 */
function parseTarget(raw: string): URL {
  return new URL(raw.startsWith('/') ? `http://localhost${raw}` : raw, 'http://localhost');
}

class BodyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Reads the body within `spec`'s limit; the parsed JSON or the bytes. */
async function readBody(req: IncomingMessage, spec: BodySpec): Promise<unknown> {
  const max = spec.maxBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (spec.kind === 'json') {
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json')
      throw new BodyError(415, `send the body as application/json (got ${type || 'no content-type'})`);
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) throw new BodyError(413, `request body over ${max} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw new BodyError(413, `request body over ${max} bytes`);
    chunks.push(chunk);
  }
  const bytes = Buffer.concat(chunks);
  if (spec.kind === 'raw') return bytes;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new BodyError(400, 'request body is not valid UTF-8');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new BodyError(400, `request body is not valid JSON: ${(err as Error).message}`);
  }
}

function allowOf(candidates: readonly Compiled[]): string {
  const methods = new Set(candidates.map((c) => c.endpoint.method));
  if (methods.has('GET')) methods.add('HEAD' as Method);
  return METHOD_ORDER.filter((m) => methods.has(m as Method)).join(', ');
}

/** The handler the server runs for every request it let in (basic auth, TLS and headers are applied before). */
export function createRouter(opts: RouterOptions): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const routes = opts.routes.map(compile);
  const admission = new Admission(opts.admission);
  return async (req, res) => {
    const rawUrl = req.url ?? '/';
    if (rawUrl.length > MAX_URL_LENGTH) return send(res, 414, TEXT, 'request target too long\n', false);
    const method = req.method ?? 'GET';
    const head = method === 'HEAD';
    let url: URL;
    try {
      url = parseTarget(rawUrl);
    } catch {
      return send(res, 400, TEXT, 'bad request target\n', head);
    }
    const onPath = routes.flatMap((c) => {
      const path = match(c, url.pathname);
      return path ? [{ c, path }] : [];
    });
    if (onPath.length === 0) return send(res, 404, TEXT, 'not found\n', head);
    const wanted = head ? 'GET' : method;
    const chosen = onPath.filter(({ c }) => c.endpoint.method === wanted);
    if (chosen.length === 0) {
      const allow = allowOf(onPath.map(({ c }) => c));
      return send(res, 405, TEXT, `method ${method} not allowed here: use ${allow}\n`, head, { allow });
    }
    let body: { value: unknown } | undefined;
    for (const { c, path } of chosen) {
      const e = c.endpoint;
      let user = parseBasicAuth(req.headers.authorization)?.user;
      if (e.access === 'write') {
        const verdict = opts.writeGate?.(req) ?? refuseAllWrites;
        if ('status' in verdict)
          return send(res, verdict.status, verdict.contentType, verdict.body, false, verdict.headers);
        user = verdict.user;
      }
      if (e.body && !body) {
        try {
          body = { value: await readBody(req, e.body) };
        } catch (err) {
          if (!(err instanceof BodyError)) throw err;
          // Past a limit the rest of the body is not read: the connection ends with the answer.
          const close: Record<string, string> = err.status === 413 ? { connection: 'close' } : {};
          return send(res, err.status, TEXT, `${err.message}\n`, head, close);
        }
      }
      const request = {
        method: wanted as Method,
        pathname: url.pathname,
        params: url.searchParams,
        path,
        headers: req.headers,
        body: body?.value,
        user,
      };
      const work = () => {
        // A client gone while its request waited: its work is not done.
        if (res.destroyed) return GONE;
        return e.access === 'write' ? e.handle({ ...request, user: user! }) : e.handle(request);
      };
      const reply = e.light ? await work() : await admission.run(req.socket.remoteAddress ?? '', work);
      if (reply === GONE) return;
      if (isRefusal(reply)) {
        const why = reply.refused === 429 ? 'too many requests from this address' : 'busy';
        // Answered after the wait it asks for: a client that does not wait still sends at most
        // one request a second per connection, and a held request costs only a timer.
        return void setTimeout(() => {
          if (!res.destroyed) send(res, reply.refused, TEXT, `${why}: try again later\n`, head, { 'retry-after': '1' });
        }, REFUSAL_HOLD_MS).unref();
      }
      if (reply?.stream) return sendStream(res, { ...reply, stream: reply.stream }, head);
      if (reply) return send(res, reply.status, reply.contentType, reply.body, head, reply.headers);
    }
    return send(res, 404, TEXT, 'not found\n', head);
  };
}

const GONE = Symbol('client gone');
/** How long a refused request is held before its 429 or 503 (its Retry-After). */
const REFUSAL_HOLD_MS = 1_000;

const refuseAllWrites: Reply = {
  status: 403,
  contentType: TEXT,
  body: 'writes are not enabled on this server\n',
};
