// The JSON-RPC 2.0 envelope exactly as the real node's HTTP framework (axum) treats it:
// 415 without a JSON content type, 400 for unparsable JSON, 422 for JSON of the wrong shape,
// and HTTP 200 for every JSON-RPC answer, errors included.
import { jsonReply, textReply, type Reply } from './reply.js';
import type { MethodOutcome } from './methods.js';
import { RawJson } from './rawjson.js';

export type Dispatch = (method: string, params: unknown) => MethodOutcome;

/** application/json with or without parameters, or any application/*+json (axum's rule). */
export function isJsonContentType(ct: string | undefined): boolean {
  if (!ct) return false;
  const mime = ct.split(';')[0]!.trim().toLowerCase();
  return mime === 'application/json' || (mime.startsWith('application/') && mime.endsWith('+json'));
}

export function handleRpc(contentType: string | undefined, body: string, dispatch: Dispatch): Reply {
  if (!isJsonContentType(contentType)) {
    return textReply(415, 'Expected request with `Content-Type: application/json`');
  }
  let req: unknown;
  try {
    req = JSON.parse(body);
  } catch (e) {
    return textReply(400, `Failed to parse the request body as JSON: ${(e as Error).message}`);
  }
  if (req === null || typeof req !== 'object' || Array.isArray(req)) {
    return textReply(
      422,
      'Failed to deserialize the JSON body into the target type: invalid type: expected struct JsonRpcRequest',
    );
  }
  const r = req as Record<string, unknown>;
  if (typeof r.method !== 'string') {
    return textReply(422, 'Failed to deserialize the JSON body into the target type: missing field `method`');
  }
  const id = r.id ?? null;
  if (r.jsonrpc !== '2.0') {
    return jsonReply({ jsonrpc: '2.0', id, error: { code: -32600, message: 'invalid jsonrpc version' } });
  }
  const outcome = dispatch(r.method, r.params);
  if ('result' in outcome && outcome.result instanceof RawJson) {
    const reply = jsonReply(null);
    return { ...reply, body: `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${outcome.result.text}}` };
  }
  return jsonReply({ jsonrpc: '2.0', id, ...outcome });
}
