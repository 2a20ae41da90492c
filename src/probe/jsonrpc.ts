// JSON-RPC 2.0 over HTTP as real nodes speak it: HTTP 200 for every answer, errors in the body,
// "method not found" as code -32000 with a message (or the standard -32601).
import type { HttpClient } from '../http/client.js';
import { answerOf, decodeUtf8, prepareRequest, ProbeError, sendProbe, sharedText, type Endpoint, type ProbeRequest, type RequestLimits } from './http.js';
import { parseJson } from './parse.js';

export type RpcAnswer = { ok: true; result: unknown } | { ok: false; code: number; message: string; methodNotFound: boolean };

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

/** One JSON-RPC method of one node, built once: calls differ only by the id in the body. Probes only read, so a call may be sent again. */
export interface RpcRequest {
  method: string;
  request: ProbeRequest;
  /** The body before and after the id. */
  head: string;
  tail: string;
}

export function prepareRpc(ep: Endpoint, method: string, limits: RequestLimits): RpcRequest {
  return {
    method: sharedText(method),
    request: prepareRequest(ep, 'POST', '/', RPC_HEADERS, limits, `POST ${method}`),
    head: '{"jsonrpc":"2.0","id":',
    tail: sharedText(`,"method":${JSON.stringify(method)},"params":[]}`),
  };
}

export async function rpcCall(client: HttpClient, ep: Endpoint, rpc: RpcRequest): Promise<RpcAnswer> {
  const id = nextId++;
  if (nextId > 2 ** 31) nextId = 1;
  const r = rpc.request;
  const out = await sendProbe(client, ep, { method: 'POST', url: r.url, headers: r.headers, body: rpc.head + id + rpc.tail, timeoutMs: r.timeoutMs, maxBytes: r.maxBytes, label: r.label, idempotent: true });
  const res = answerOf(out, r);
  const type = res.headers['content-type'];
  if (!/json/i.test(typeof type === 'string' ? type : String(type ?? ''))) throw new ProbeError('invalid_response', `${r.label}: content-type is not JSON`);
  return parseRpcResponse(parseJson(decodeUtf8(res.body, r.label), r.label), id, rpc.method);
}
