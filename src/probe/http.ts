// How probes talk to one node through the shared HTTP client: the node's base URL without
// credentials, its configured headers (some read from files at request time), and every failure
// turned into a ProbeError with the reason the metrics use.
import type { FailureReason, NodeTarget, SecretValue } from '../domain.js';
import type { HttpClient, HttpOutcome, HttpRequest, HttpResponse } from '../http/client.js';
import { Destination } from '../http/destination.js';
import { ProbeError } from '../probes/errors.js';
import { basicToken, redactUrl, type Secrets } from '../redact.js';
import { nodeSecrets } from './nodeText.js';
import { readUtf8File } from '../files/utf8.js';

export type RawResponse = HttpResponse;

/** How to reach one node, derived once from its target: credentials moved into a header. */
export interface Endpoint {
  /** Base URL without credentials and without trailing slash, e.g. https://host/ledger */
  base: string;
  /** Safe to show: equals `base`. */
  display: string;
  staticHeaders: Record<string, string>;
  fileHeaders: Array<[string, string]>;
  /** What this node is sent that is secret (nodeText.ts scrubs its answers of them); header files add theirs. */
  secrets: Secrets;
}

export function endpointFor(target: Pick<NodeTarget, 'url' | 'headers'>): Endpoint {
  const u = new URL(target.url);
  const staticHeaders: Record<string, string> = {};
  if (u.username || u.password) {
    staticHeaders.authorization = `Basic ${basicToken(u)}`;
    u.username = '';
    u.password = '';
  }
  const fileHeaders: Array<[string, string]> = [];
  for (const [name, v] of Object.entries<SecretValue>(target.headers)) {
    if ('value' in v) staticHeaders[name.toLowerCase()] = v.value;
    else fileHeaders.push([name.toLowerCase(), v.file]);
  }
  u.search = '';
  u.hash = '';
  const base = u.toString().replace(/\/+$/, '');
  const secrets = nodeSecrets(target.url, Object.values(staticHeaders));
  return { base, display: redactUrl(base), staticHeaders, fileHeaders, secrets };
}

/**
 * One request of a probe to one node, built once per node (URL parsed, headers merged): a poll
 * sends it as is, or with a new JSON-RPC body.
 */
export interface ProbeRequest extends HttpRequest {
  method: 'GET' | 'POST';
  url: Destination;
  headers: Record<string, string>;
  /** e.g. "GET /health" or "POST claw_blockNumber". */
  label: string;
}

export interface RequestLimits {
  timeoutMs: number;
  maxBytes: number;
}

export function prepareRequest(
  ep: Endpoint,
  method: 'GET' | 'POST',
  path: string,
  headers: Record<string, string>,
  limits: RequestLimits,
  label: string,
): ProbeRequest {
  const target = sharedTarget(ep, path, headers);
  return {
    method,
    url: target.url,
    headers: target.headers,
    timeoutMs: limits.timeoutMs,
    maxBytes: limits.maxBytes,
    label: sharedText(label),
  };
}

/**
 * A node's requests to one path with the same headers (every JSON-RPC method posts to "/") share
 * one parsed target and one merged header set; a copy per request was ~0.5 KB per node and request
 * at fleet scale. Nobody changes them once built (header files are merged into a copy).
 */
const targets = new WeakMap<Endpoint, Map<string, { url: Destination; headers: Record<string, string> }>>();

function sharedTarget(
  ep: Endpoint,
  path: string,
  headers: Record<string, string>,
): { url: Destination; headers: Record<string, string> } {
  let byKey = targets.get(ep);
  if (!byKey) targets.set(ep, (byKey = new Map<string, { url: Destination; headers: Record<string, string> }>()));
  const key = `${path}\n${JSON.stringify(headers)}`;
  let t = byKey.get(key);
  if (!t)
    byKey.set(
      key,
      (t = { url: new Destination(new URL(ep.base + path)), headers: { ...ep.staticHeaders, ...headers } }),
    );
  return t;
}

/**
 * One copy of a request's fixed text (labels, JSON-RPC method names) for every node: a few dozen
 * distinct strings (probes x namespaces), otherwise repeated per node. Bounded all the same.
 */
const texts = new Map<string, string>();

export function sharedText(s: string): string {
  const t = texts.get(s);
  if (t !== undefined) return t;
  if (texts.size < 1024) texts.set(s, s);
  return s;
}

async function withFileHeaders(client: HttpClient, ep: Endpoint, req: ProbeRequest): Promise<ProbeRequest> {
  const headers = { ...req.headers };
  for (const [name, file] of ep.fileHeaders) {
    // Read at request time so a rotated secret is used without a restart; a secret from then on.
    const value = (await readUtf8File(file)).trim();
    client.secrets.add(value);
    ep.secrets.add(value);
    headers[name] = value;
  }
  return { ...req, headers };
}

/**
 * Sends one request to the node (header files read first, when it has any). Not async itself:
 * without header files the client's promise is returned as is, one promise layer less per request.
 */
export function sendProbe(client: HttpClient, ep: Endpoint, req: ProbeRequest): Promise<HttpOutcome> {
  return ep.fileHeaders.length > 0 ? sendWithFileHeaders(client, ep, req) : client.send(req);
}

async function sendWithFileHeaders(client: HttpClient, ep: Endpoint, req: ProbeRequest): Promise<HttpOutcome> {
  let send: ProbeRequest;
  try {
    send = await withFileHeaders(client, ep, req);
  } catch (err) {
    throw new ProbeError(
      'connect',
      `cannot read a header file for ${ep.display}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  return client.send(send);
}

/** The 2xx answer of an outcome; throws the classified ProbeError otherwise. */
export function answerOf(out: HttpOutcome, req: ProbeRequest): RawResponse {
  if (out.ok) return out.response;
  // Redirects are not followed: a node URL that redirects is misconfigured (and a loop never ends).
  const reason: FailureReason = out.reason === 'redirect' ? 'invalid_response' : out.reason;
  throw new ProbeError(reason, out.message, out.response, req.label);
}

/** Decodes a body as strict UTF-8; invalid bytes are an invalid response, not silently replaced. */
// One decoder for every body: decode() without { stream: true } keeps no state between calls.
const UTF8 = new TextDecoder('utf-8', { fatal: true });

export function decodeUtf8(body: Buffer, what: string): string {
  try {
    return UTF8.decode(body);
  } catch {
    throw new ProbeError('invalid_response', `${what}: body is not valid UTF-8`);
  }
}
