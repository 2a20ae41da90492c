// Transport failures (no usable HTTP answer) and statuses, classified into the few reasons the
// metrics and the callers distinguish. Messages name the redacted URL and an error code only.
import { errors } from '../deps/undici.js';

export const HTTP_FAILURE_REASONS = [
  'timeout',
  'connect',
  'http_5xx',
  'http_4xx',
  'invalid_response',
  'redirect',
] as const;
export type HttpFailureReason = (typeof HTTP_FAILURE_REASONS)[number];

export const CONNECT_CODES: ReadonlySet<string> = new Set([
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

export function errorCode(err: unknown): string {
  const e = err as (NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException }) | undefined;
  return e?.code ?? e?.cause?.code ?? '';
}

export function classifyTransportError(
  err: unknown,
  display: string,
  deadlinePassed: boolean,
): { reason: HttpFailureReason; message: string } {
  const e = err as NodeJS.ErrnoException | undefined;
  const code = errorCode(err);
  if (
    deadlinePassed ||
    err instanceof errors.HeadersTimeoutError ||
    err instanceof errors.BodyTimeoutError ||
    err instanceof errors.ConnectTimeoutError ||
    code === 'ETIMEDOUT' ||
    e?.name === 'TimeoutError'
  ) {
    return { reason: 'timeout', message: `timed out talking to ${display}` };
  }
  if (CONNECT_CODES.has(code)) return { reason: 'connect', message: `cannot reach ${display}: ${code}` };
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/i.test(code)) {
    return { reason: 'connect', message: `TLS failure talking to ${display}: ${code}` };
  }
  if (err instanceof errors.HTTPParserError)
    return { reason: 'invalid_response', message: `malformed HTTP from ${display}` };
  if (err instanceof errors.ResponseContentLengthMismatchError) {
    return { reason: 'invalid_response', message: `body length mismatch from ${display}` };
  }
  return { reason: 'connect', message: `request to ${display} failed: ${code || e?.name || 'error'}` };
}

/** The failure a non-2xx status stands for; undefined for 2xx. */
export function statusReason(status: number): HttpFailureReason | undefined {
  if (status >= 200 && status < 300) return undefined;
  if (status >= 500) return 'http_5xx';
  if (status >= 400) return 'http_4xx';
  if (status >= 300 && status < 400) return 'redirect';
  return 'invalid_response';
}
