// The HTTP receivers' edge: the one HTTP client turned into a part's delivery. Messages never
// carry a receiver URL (labels name the receiver instead).
import type { HttpClient } from '../../http/client.js';
import { scrubParts, urlEveryPart } from '../../redact.js';
import type { DeliveryOutcome, OutboundRequest } from '../receivers/kind.js';

/** Bytes of a receiver's answer kept (errors only need the status). */
const MAX_ANSWER_BYTES = 64 * 1024;

/** Reads a wait from a refusal's body when its service puts it there (Telegram, Discord); ms. */
export type RetryHint = (status: number, body: Buffer) => number | undefined;

/**
 * POSTs through the project's one HTTP client; 5xx, 429 and transport failures are worth a retry,
 * after the Retry-After header, else the body's hint, else the queue's backoff.
 */
export function httpSend(
  client: HttpClient,
  timeoutMs: number,
  hint?: RetryHint,
): (req: OutboundRequest) => Promise<DeliveryOutcome> {
  return async (req) => {
    const out = await client.send({
      method: 'POST',
      url: req.url,
      headers: req.headers,
      body: req.body,
      timeoutMs,
      maxBytes: MAX_ANSWER_BYTES,
      redirect: 'none',
      label: `POST ${req.label}`,
    });
    if (out.ok)
      return { ok: true, retryable: false, status: out.response.status, message: `HTTP ${out.response.status}` };
    // A 2xx is a delivery whatever its size: the answer was read up to the cap, the rest dropped.
    const status = out.response?.status ?? 0;
    if (out.response?.truncated && status >= 200 && status < 300)
      return { ok: true, retryable: false, status, message: `HTTP ${status}` };
    const retryable =
      out.reason === 'timeout' || out.reason === 'connect' || out.reason === 'http_5xx' || out.status === 429;
    // The receiver's answer may echo its own URL (an Express-style 404): every part of it goes.
    const own = urlEveryPart(String(req.url));
    const scrub = (t: string) => scrubParts(client.secrets.scrub(t), own);
    const why =
      out.response && out.status !== undefined && out.status >= 400 ? answerExcerpt(out.response.body, scrub) : '';
    // out.message is scrubbed by the client, the excerpt before it was cut.
    const retryAfterMs =
      out.retryAfterMs ?? (out.response && hint ? hint(out.response.status, out.response.body) : undefined);
    return {
      ok: false,
      retryable,
      status: out.status,
      message: why ? `${out.message}: ${why}` : out.message,
      retryAfterMs,
    };
  };
}

/**
 * Characters of a refusal's body put in the message: receivers say why there (Slack's `invalid_token`, PagerDuty's
 * `errors`).
 */
export const ANSWER_EXCERPT_CHARS = 200;

/**
 * The start of an error answer on one line (control characters and runs of spaces collapsed), or
 * ''. The whole answer is scrubbed before it is cut: a cut must not leave the head of a secret.
 */
export function answerExcerpt(body: Buffer, scrub: (text: string) => string): string {
  const text = scrub(body.toString('utf8'))
    .replace(/[\u0000-\u001f\u007f\s]+/gu, ' ')
    .trim();
  return text.length > ANSWER_EXCERPT_CHARS ? `${text.slice(0, ANSWER_EXCERPT_CHARS)}...` : text;
}
