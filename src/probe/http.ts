// The one HTTP path to nodes: keep-alive per origin, timeouts, a cap on body size, bodies
// always consumed or destroyed, every failure classified. No secret ever reaches a message.
import { readFile } from 'node:fs/promises';
import { Agent, errors, request, type Dispatcher } from 'undici';
import type { FailureReason, NodeTarget, SecretValue } from '../domain.js';
import { redactUrl, scrubber } from '../redact.js';

/** A failed request, already classified. `response` is set when the node answered with a status. */
export class ProbeError extends Error {
  constructor(
    readonly reason: FailureReason,
    message: string,
    readonly response?: RawResponse,
  ) {
    super(scrubber.scrub(message));
    this.name = 'ProbeError';
  }
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** True when the body was cut at the size cap. */
  truncated: boolean;
}

/** How to reach one node, derived once from its target: credentials moved into a header. */
export interface Endpoint {
  /** Base URL without credentials and without trailing slash, e.g. https://host/ledger */
  base: string;
  /** Safe to show: equals `base`. */
  display: string;
  staticHeaders: Record<string, string>;
  fileHeaders: Array<[string, string]>;
}

export function endpointFor(target: Pick<NodeTarget, 'url' | 'headers'>): Endpoint {
  const u = new URL(target.url);
  const staticHeaders: Record<string, string> = {};
  if (u.username || u.password) {
    const user = decodeURIComponent(u.username);
    const pass = decodeURIComponent(u.password);
    scrubber.addUrlCredentials(target.url);
    const token = Buffer.from(`${user}:${pass}`).toString('base64');
    scrubber.add(token);
    staticHeaders.authorization = `Basic ${token}`;
    u.username = '';
    u.password = '';
  }
  const fileHeaders: Array<[string, string]> = [];
  for (const [name, v] of Object.entries(target.headers) as Array<[string, SecretValue]>) {
    if ('value' in v) {
      scrubber.add(v.value);
      staticHeaders[name.toLowerCase()] = v.value;
    } else fileHeaders.push([name.toLowerCase(), v.file]);
  }
  u.search = '';
  u.hash = '';
  const base = u.toString().replace(/\/+$/, '');
  return { base, display: redactUrl(base), staticHeaders, fileHeaders };
}

export interface HttpOptions {
  timeoutMs: number;
  maxBytes: number;
}

export function createDispatcher(opts: { connectTimeoutMs?: number } = {}): Agent {
  return new Agent({
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 120_000,
    connectTimeout: opts.connectTimeoutMs ?? 5_000,
    // A few sockets per origin: one node's five probes run side by side without queueing.
    connections: 8,
    pipelining: 1,
  });
}

async function headersFor(ep: Endpoint, extra: Record<string, string>): Promise<Record<string, string>> {
  const h: Record<string, string> = { ...ep.staticHeaders, ...extra };
  for (const [name, file] of ep.fileHeaders) {
    // Read at request time so a rotated secret is used without a restart.
    const value = (await readFile(file, 'utf8')).trim();
    scrubber.add(value);
    h[name] = value;
  }
  return h;
}

/**
 * One bounded request. Resolves with any HTTP status (callers classify statuses), rejects
 * with a ProbeError for transport failures, timeouts and oversize bodies.
 */
export async function httpRequest(
  dispatcher: Dispatcher,
  ep: Endpoint,
  path: string,
  opts: HttpOptions & { method: 'GET' | 'POST'; body?: string; headers?: Record<string, string> },
): Promise<RawResponse> {
  const url = ep.base + path;
  // One deadline for the whole exchange (undici's own timeouts are per phase and per chunk, so a
  // trickling body would never end). A cleared timer, not AbortSignal.timeout: at fleet scale
  // thousands of those would outlive their requests by the full timeout.
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), opts.timeoutMs);
  try {
    return await exchange(dispatcher, ep, url, path, opts, deadline.signal);
  } finally {
    clearTimeout(timer);
  }
}

async function exchange(
  dispatcher: Dispatcher,
  ep: Endpoint,
  url: string,
  path: string,
  opts: HttpOptions & { method: 'GET' | 'POST'; body?: string; headers?: Record<string, string> },
  signal: AbortSignal,
): Promise<RawResponse> {
  let headers: Record<string, string>;
  try {
    headers = await headersFor(ep, opts.headers ?? {});
  } catch (err) {
    throw new ProbeError('connect', `cannot read a header file for ${ep.display}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  let res: Dispatcher.ResponseData;
  try {
    res = await request(url, {
      dispatcher,
      method: opts.method,
      headers,
      body: opts.body,
      signal,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
    });
  } catch (err) {
    throw classifyTransportError(err, ep.display, signal);
  }
  try {
    const { body, truncated } = await readBounded(res.body, opts.maxBytes);
    if (truncated && res.statusCode < 500) {
      throw new ProbeError('invalid_response', `response from ${ep.display}${path} exceeds ${opts.maxBytes} bytes`);
    }
    return { status: res.statusCode, headers: res.headers, body, truncated };
  } catch (err) {
    if (err instanceof ProbeError) throw err;
    throw classifyTransportError(err, ep.display, signal);
  }
}

/** Reads at most maxBytes (+1 to detect overflow), then destroys the stream. */
async function readBounded(body: Dispatcher.ResponseData['body'], maxBytes: number): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    const buf = chunk as Buffer;
    if (total + buf.length > maxBytes) {
      chunks.push(buf.subarray(0, maxBytes - total));
      total = maxBytes;
      body.destroy();
      return { body: Buffer.concat(chunks, total), truncated: true };
    }
    chunks.push(buf);
    total += buf.length;
  }
  return { body: Buffer.concat(chunks, total), truncated: false };
}

const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

export function classifyTransportError(err: unknown, display: string, signal?: AbortSignal): ProbeError {
  if (err instanceof ProbeError) return err;
  const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = e?.code ?? e?.cause?.code ?? '';
  if (
    signal?.aborted ||
    err instanceof errors.HeadersTimeoutError ||
    err instanceof errors.BodyTimeoutError ||
    err instanceof errors.ConnectTimeoutError ||
    code === 'ETIMEDOUT' ||
    e?.name === 'TimeoutError' ||
    e?.name === 'AbortError'
  ) {
    return new ProbeError('timeout', `timed out talking to ${display}`);
  }
  if (CONNECT_CODES.has(code)) return new ProbeError('connect', `cannot reach ${display}: ${code}`);
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/i.test(code)) {
    return new ProbeError('connect', `TLS failure talking to ${display}: ${code}`);
  }
  if (err instanceof errors.HTTPParserError) return new ProbeError('invalid_response', `malformed HTTP from ${display}`);
  if (err instanceof errors.ResponseContentLengthMismatchError) {
    return new ProbeError('invalid_response', `body length mismatch from ${display}`);
  }
  return new ProbeError('connect', `request to ${display} failed: ${code || e?.name || 'error'}`);
}

/** Decodes a body as strict UTF-8; invalid bytes are an invalid response, not silently replaced. */
export function decodeUtf8(body: Buffer, what: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw new ProbeError('invalid_response', `${what}: body is not valid UTF-8`);
  }
}

/** Maps a non-2xx status to a classified failure; `response` carries what evidence needs. */
export function statusError(res: RawResponse, what: string): ProbeError | undefined {
  if (res.status >= 200 && res.status < 300) return undefined;
  if (res.status >= 500) return new ProbeError('http_5xx', `${what}: HTTP ${res.status}`, res);
  if (res.status >= 400) return new ProbeError('http_4xx', `${what}: HTTP ${res.status}`, res);
  // Redirects are not followed: a node URL that redirects is misconfigured (and a loop never ends).
  return new ProbeError('invalid_response', `${what}: unexpected HTTP ${res.status}`, res);
}
