// Shared helpers of the simulator tests: real HTTP over loopback.
import { request } from 'undici';

export interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export async function http(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string; timeoutMs?: number } = {},
): Promise<RawReply> {
  const res = await request(url, {
    method: (opts.method ?? 'GET') as 'GET',
    headers: opts.headers,
    body: opts.body,
    headersTimeout: opts.timeoutMs ?? 5_000,
    bodyTimeout: opts.timeoutMs ?? 5_000,
  });
  return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
}

export async function rpcRaw(url: string, method: string, params: unknown[] = [], id: unknown = 1): Promise<RawReply> {
  return http(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
}

export async function rpc(
  url: string,
  method: string,
  params: unknown[] = [],
): Promise<{ result?: unknown; error?: { code: number; message: string }; id?: unknown }> {
  const r = await rpcRaw(url, method, params);
  if (r.status !== 200) throw new Error(`HTTP ${r.status} for ${method}`);
  return JSON.parse(r.body) as { result?: unknown; error?: { code: number; message: string } };
}

export async function getJson(url: string): Promise<Record<string, unknown>> {
  const r = await http(url);
  if (r.status !== 200) throw new Error(`HTTP ${r.status} for ${url}`);
  return JSON.parse(r.body) as Record<string, unknown>;
}

/** Polls until `check` holds; bounded, so a broken simulator fails instead of hanging. */
/** A clock that only moves when told: fault and height tests need no real waiting. */
export function manualClock(start = Date.now()): { now: () => number; advance(ms: number): void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

export const HEX64 = /^[0-9a-f]{64}$/;
