// JSON-RPC 2.0 over HTTP as real nodes speak it: HTTP 200 for every answer, errors in the body,
// "method not found" as code -32000 with a message (or the standard -32601).
import type { HttpClient } from '../http/client.js';
import { ProbeError } from '../probes/errors.js';
import { parseJson } from '../probes/parse.js';
import type { RpcParams } from '../probes/types.js';
import {
  answerOf,
  decodeUtf8,
  prepareRequest,
  sendProbe,
  sharedText,
  type Endpoint,
  type ProbeRequest,
  type RequestLimits,
} from './http.js';

export type RpcAnswer =
  { ok: true; result: unknown } | { ok: false; code: number; message: string; methodNotFound: boolean };

let nextId = 1;

export function isMethodNotFound(code: number, message: string): boolean {
  return code === -32601 || (code === -32000 && /method not found/i.test(message));
}

/** Validates one JSON-RPC response object against the request id. Pure. */
export function parseRpcResponse(body: unknown, id: number, method: string): RpcAnswer {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ProbeError('invalid_response', `${method}: response is not a JSON-RPC object`);
  }
  const r = body as Record<string, unknown>;
  if (r.jsonrpc !== '2.0') throw new ProbeError('invalid_response', `${method}: response lacks jsonrpc "2.0"`);
  if (r.id !== id) throw new ProbeError('invalid_response', `${method}: response id does not match the request id`);
  if (r.error !== undefined && r.error !== null) {
    const e = r.error as Record<string, unknown>;
    if (typeof e !== 'object' || typeof e.code !== 'number') {
      throw new ProbeError('invalid_response', `${method}: malformed JSON-RPC error object`);
    }
    const message = typeof e.message === 'string' ? e.message.slice(0, 200) : '';
    return { ok: false, code: e.code, message, methodNotFound: isMethodNotFound(e.code, message) };
  }
  if (!('result' in r)) throw new ProbeError('invalid_response', `${method}: response has neither result nor error`);
  return { ok: true, result: r.result };
}

const RPC_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

/**
 * One JSON-RPC call of one node (method and params), built once: calls differ only by the id in
 * the body. Probes only read, so a call may be sent again.
 */
export interface RpcRequest {
  method: string;
  request: ProbeRequest;
  /** The body before and after the id. */
  head: string;
  tail: string;
  /** Number fields of the result read exactly, as decimal strings (see exactNumbers). */
  exact?: readonly string[];
}

const HEAD = '{"jsonrpc":"2.0","id":';

/** The body after the id: shared by every node that sends the same method and params (no params: the shared text). */
export function rpcTail(method: string, params: RpcParams = []): string {
  const tail = `,"method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}`;
  return params.length === 0 ? sharedText(tail) : tail;
}

export function prepareRpc(ep: Endpoint, method: string, limits: RequestLimits, params?: RpcParams): RpcRequest {
  return {
    method: sharedText(method),
    request: prepareRpcPost(ep, method, limits),
    head: HEAD,
    tail: rpcTail(method, params),
  };
}

/** The POST of a node's JSON-RPC calls to one method (URL and headers shared by all its calls). */
export function prepareRpcPost(ep: Endpoint, method: string, limits: RequestLimits): ProbeRequest {
  return prepareRequest(ep, 'POST', '/', RPC_HEADERS, limits, `POST ${method}`);
}

/** A call of `method` with a body after the id built beforehand (rpcTail), on a prepared POST. */
export function rpcRequestOf(post: ProbeRequest, method: string, tail: string, exact?: readonly string[]): RpcRequest {
  return { method, request: post, head: HEAD, tail, exact };
}

/**
 * Quotes the JSON numbers of the named fields, so JSON.parse keeps their every digit (a u128 beyond
 * 2^53 would be rounded). Object keys are the only unescaped `"name":` in JSON text: a string
 * value holding the same characters has its quotes escaped.
 */
export function quoteExactNumbers(text: string, fields: readonly string[]): string {
  let out = text;
  for (const f of fields)
    out = out.replace(
      new RegExp(`"${f}"(\\s*):(\\s*)(-?[0-9]+(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)`, 'g'),
      `"${f}"$1:$2"$3"`,
    );
  return out;
}

export async function rpcCall(client: HttpClient, ep: Endpoint, rpc: RpcRequest): Promise<RpcAnswer> {
  const id = nextId++;
  if (nextId > 2 ** 31) nextId = 1;
  const r = rpc.request;
  const out = await sendProbe(client, ep, {
    method: 'POST',
    url: r.url,
    headers: r.headers,
    body: rpc.head + id + rpc.tail,
    timeoutMs: r.timeoutMs,
    maxBytes: r.maxBytes,
    label: r.label,
    idempotent: true,
  });
  const res = answerOf(out, r);
  const type = res.headers['content-type'];
  if (!/json/i.test(typeof type === 'string' ? type : String(type ?? '')))
    throw new ProbeError('invalid_response', `${r.label}: content-type is not JSON`);
  const text = decodeUtf8(res.body, r.label);
  return parseRpcResponse(parseJson(rpc.exact ? quoteExactNumbers(text, rpc.exact) : text, r.label), id, rpc.method);
}
