// Receivers' edge: secrets read from their files, and the one HTTP client turned into the
// queue's send function. Messages never carry a receiver URL (labels name the receiver instead).
import { readFile } from 'node:fs/promises';
import type { SecretValue } from '../domain.js';
import type { HttpClient } from '../http/client.js';
import type { Secrets } from '../redact.js';
import { urlCredentials, urlSecretParts } from '../redact.js';
import type { SendFn, SendOutcome } from './queue.js';
import { alertmanagerAuthorization } from './receivers/alertmanager.js';
import type { ReceiverSpec } from './receivers/types.js';
import type { ReceiverSettings } from './settings.js';

/** Bytes of a receiver's answer kept (errors only need the status). */
const MAX_ANSWER_BYTES = 64 * 1024;

async function readSecret(v: SecretValue, what: string): Promise<string> {
  if ('value' in v) return v.value;
  try {
    return (await readFile(v.file, 'utf8')).trim();
  } catch (err) {
    throw new Error(`cannot read ${what} from ${v.file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** The receiver with its secrets read; every secret is registered before it is used. */
export async function materializeReceiver(r: ReceiverSettings, secrets: Secrets): Promise<ReceiverSpec> {
  const keep = (s: string) => {
    secrets.add(s);
    secrets.addAll(urlCredentials(s));
    secrets.addAll(urlSecretParts(s));
    return s;
  };
  switch (r.kind) {
    case 'alertmanager': {
      const bearerToken = r.bearerToken ? keep(await readSecret(r.bearerToken, `receiver ${r.name} bearer token`)) : undefined;
      const basicAuth = r.basicAuth ? { username: r.basicAuth.username, password: keep(await readSecret(r.basicAuth.password, `receiver ${r.name} password`)) } : undefined;
      // The header a server may echo back (decoding to user:password).
      if (basicAuth) keep(alertmanagerAuthorization({ basicAuth })!);
      return { name: r.name, kind: 'alertmanager', urls: r.urls, ...(bearerToken ? { bearerToken } : {}), ...(basicAuth ? { basicAuth } : {}) };
    }
    case 'webhook':
      keep(r.url);
      Object.values(r.headers).forEach(keep);
      return { name: r.name, kind: 'webhook', url: r.url, headers: r.headers };
    case 'slack':
      return { name: r.name, kind: 'slack', webhookUrl: keep(await readSecret(r.webhookUrl, `receiver ${r.name} webhook URL`)), ...(r.channel ? { channel: r.channel } : {}) };
    case 'pagerduty':
      return { name: r.name, kind: 'pagerduty', url: r.url, routingKey: keep(await readSecret(r.routingKey, `receiver ${r.name} routing key`)) };
  }
}

/** POSTs through the project's one HTTP client; 5xx, 429 and transport failures are worth a retry. */
export function httpSend(client: HttpClient, timeoutMs: number): SendFn {
  return async (req): Promise<SendOutcome> => {
    const out = await client.send({ method: 'POST', url: req.url, headers: req.headers, body: req.body, timeoutMs, maxBytes: MAX_ANSWER_BYTES, redirect: 'none', label: `POST ${req.label}` });
    if (out.ok) return { ok: true, retryable: false, status: out.response.status };
    const retryable = out.reason === 'timeout' || out.reason === 'connect' || out.reason === 'http_5xx' || out.status === 429;
    const why = out.response && out.status !== undefined && out.status >= 400 ? answerExcerpt(out.response.body, (t) => client.secrets.scrub(t)) : '';
    // out.message is scrubbed by the client, the excerpt before it was cut.
    return { ok: false, retryable, status: out.status, message: why ? `${out.message}: ${why}` : out.message, retryAfterMs: out.retryAfterMs };
  };
}

/** Characters of a refusal's body put in the message: receivers say why there (Slack's `invalid_token`, PagerDuty's `errors`). */
export const ANSWER_EXCERPT_CHARS = 200;

/**
 * The start of an error answer on one line (control characters and runs of spaces collapsed), or
 * ''. The whole answer is scrubbed before it is cut: a cut must not leave the head of a secret.
 */
export function answerExcerpt(body: Buffer, scrub: (text: string) => string): string {
  const text = scrub(body.toString('utf8')).replace(/[\u0000-\u001f\u007f\s]+/gu, ' ').trim();
  return text.length > ANSWER_EXCERPT_CHARS ? `${text.slice(0, ANSWER_EXCERPT_CHARS)}...` : text;
}
