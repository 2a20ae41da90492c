// E-mail through an SMTP smarthost, with nodemailer (the ecosystem's SMTP client): a plain-text
// and an HTML part, a subject like Alertmanager's (`[FIRING:3] LedgerNodeDown mainnet`), AUTH when a
// username is set, TLS from the first byte, STARTTLS required, or none (only to a loopback relay).
// SMTP 4xx and connection failures are retried; 5xx (a refused recipient, refused credentials) not.
import { readFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import * as z from 'zod';
import { isLoopbackHost } from '../../config/rules.js';
import type { Notification } from '../notify/notification.js';
import { checkSecretPair, filePath, secretFields, secretOf, slot } from './fields.js';
import type {
  DeliveryIO,
  DeliveryOutcome,
  DeliveryPart,
  DryCheckIO,
  DryCheckResult,
  PayloadContext,
  ReceiverBase,
} from './kind.js';
import { defineReceiverKind } from './kind.js';
import { alertTexts, andMore, escapeHtml, fitItems, statusPageUrl, title, type AlertText } from './message.js';

/** Alerts listed in one mail; the rest are counted. */
const MAX_MAIL_CHARS = 200_000;
const ADDRESS = z.email({ error: 'expected an e-mail address such as oncall@example.org' });

export interface EmailSpec {
  host: string;
  port: number;
  tls: 'starttls' | 'tls' | 'none';
  from: string;
  to: string[];
  username?: string;
  password?: string;
  caFile?: string;
}

type EmailSpecOf = EmailSpec & ReceiverBase;

/** One mail: what it says, and the smarthost that takes it (a part carries what its send needs). */
export interface Mail extends DeliveryPart {
  spec: EmailSpecOf;
  subject: string;
  text: string;
  html: string;
}

export const emailKind = defineReceiverKind({
  kind: 'email',
  description: "E-mail through an SMTP smarthost: plain text and HTML, a subject like Alertmanager's.",
  fields: {
    smarthost: z
      .string()
      .regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):[0-9]{1,5}$/, 'smarthost is host:port, e.g. smtp.example.org:587')
      .meta({ description: 'SMTP server as host:port.' }),
    from: ADDRESS.meta({ description: 'Sender address.' }),
    to: z.array(ADDRESS).min(1, 'at least one recipient').meta({ description: 'Recipient addresses.' }),
    username: z.string().min(1).optional().meta({ description: 'SMTP AUTH user; AUTH is used when set.' }),
    ...secretFields('password', 'SMTP AUTH password'),
    tls: z
      .enum(['starttls', 'tls', 'none'])
      .default('starttls')
      .meta({
        description:
          'starttls (required, usually port 587), tls (from the first byte, usually 465), none (only to a loopback ' +
          'host).',
      }),
    caFile: filePath(
      'PEM file of the CA the smarthost certificate is checked against; default the system CAs.',
    ).optional(),
  },
  check: (raw, issue) => {
    checkSecretPair(raw, 'password', issue, false);
    if ((raw.password !== undefined || raw.passwordFile !== undefined) && !raw.username)
      issue('a password needs a username', ['username']);
    const host = raw.smarthost.replace(/:[0-9]+$/, '');
    if (raw.tls === 'none' && !isLoopbackHost(host))
      issue('tls: none is only allowed to a loopback smarthost (mail and password would cross the network in clear)', [
        'tls',
      ]);
  },
  resolve: (raw, file) => {
    const password = secretOf(raw, 'password', file);
    const at = raw.smarthost.lastIndexOf(':');
    return {
      host: raw.smarthost.slice(0, at).replace(/^\[|\]$/g, ''),
      port: Number(raw.smarthost.slice(at + 1)),
      tls: raw.tls,
      from: raw.from,
      to: raw.to,
      ...(raw.username ? { username: raw.username } : {}),
      ...(password ? { password } : {}),
      ...(raw.caFile ? { caFile: file(raw.caFile) } : {}),
    };
  },
  secrets: (s) => ({ password: slot(s.password, 'SMTP password') }),
  build: ({ password: _unread, name: _n, kind: _k, ...s }, secret): EmailSpec => {
    const password = secret('password');
    return { ...s, ...(password !== undefined ? { password } : {}) };
  },
  parts: (spec, n, ctx): Mail[] => [{ label: `email ${spec.name}`, spec, ...mailOf(n, ctx) }],
  send: sendMail,
  dryCheck: checkSmarthost,
});

async function transportOf(spec: EmailSpec, timeoutMs: number, signal: AbortSignal) {
  const ca = spec.caFile ? await readFile(spec.caFile) : undefined;
  // Loaded at the first mail or check: nodemailer costs every exporter ~2 MB of heap and ~10 MB of
  // RSS at start-up, and most have no email receiver.
  const { createTransport } = await import('nodemailer');
  return createTransport({
    host: spec.host,
    port: spec.port,
    secure: spec.tls === 'tls',
    requireTLS: spec.tls === 'starttls',
    ignoreTLS: spec.tls === 'none',
    ...(spec.username ? { auth: { user: spec.username, pass: spec.password ?? '' } } : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    // nodemailer's timeouts are per phase and per line: a server dripping a line a second never
    // trips them. The socket is connected here and handed over, so the attempt's deadline can
    // destroy it (nodemailer upgrades it to TLS itself, from the first byte or at STARTTLS).
    getSocket: (_options, callback) => connectUntil(spec, signal, callback),
    ...(ca ? { tls: { ca } } : {}),
  });
}

/** A TCP connection to the smarthost, destroyed when `signal` aborts (the TLS layered on it ends with it). */
function connectUntil(
  spec: EmailSpec,
  signal: AbortSignal,
  callback: (err: Error | null, socketOptions?: { connection: Socket }) => void,
): void {
  if (signal.aborted) return callback(new Error('deadline passed before connecting'));
  const socket = connect({ host: spec.host, port: spec.port });
  // Ours as well as nodemailer's: an error after nodemailer let go of the socket is not unhandled.
  socket.on('error', () => undefined);
  const destroy = () => socket.destroy(new Error('deadline passed'));
  signal.addEventListener('abort', destroy, { once: true });
  socket.once('close', () => signal.removeEventListener('abort', destroy));
  const failed = (err: Error) => callback(err);
  socket.once('error', failed);
  socket.once('connect', () => {
    socket.off('error', failed);
    callback(null, { connection: socket });
  });
}

/** SMTP's own answer classes: 4xx and a lost connection may pass; 5xx will not. */
function outcomeOf(err: unknown, what: string, scrub: (s: string) => string): DeliveryOutcome {
  const e = err as { responseCode?: number; code?: string; message?: string };
  const retryable = e.responseCode === undefined ? e.code !== 'EAUTH' && e.code !== 'EENVELOPE' : e.responseCode < 500;
  const why = (e.message ?? String(err))
    .replace(/[\u0000-\u001f\u007f\s]+/gu, ' ')
    .trim()
    .slice(0, 300);
  return {
    ok: false,
    retryable,
    ...(e.responseCode !== undefined ? { status: e.responseCode } : {}),
    message: scrub(`${what}: ${e.code ?? 'SMTP'}: ${why}`),
  };
}

interface SentInfo {
  response?: string;
  rejectedErrors?: Array<{ responseCode?: number; code?: string; message?: string }>;
}

async function sendMail(mail: Mail, io: DeliveryIO): Promise<DeliveryOutcome> {
  const spec = mail.spec;
  try {
    const transport = await transportOf(spec, io.timeoutMs, io.signal);
    try {
      const info = (await transport.sendMail({
        from: spec.from,
        to: spec.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        signal: io.signal,
      })) as SentInfo;
      // A recipient refused is a page not delivered: retried (to all: at least once) while its refusal is temporary.
      const refused = info.rejectedErrors ?? [];
      if (refused.length > 0)
        return {
          ...outcomeOf(refused[0], mail.label, (s) => io.secrets.scrub(s)),
          retryable: refused.every((e) => (e.responseCode ?? 400) < 500),
        };
      const code = Number(/^([0-9]{3})/.exec(info.response ?? '')?.[1] ?? 250);
      return { ok: true, retryable: false, status: code, message: `SMTP ${code}` };
    } finally {
      transport.close();
    }
  } catch (err) {
    if (io.signal.aborted) return { ok: false, retryable: true, message: `${mail.label}: ${deadlineText(io)}` };
    return outcomeOf(err, mail.label, (s) => io.secrets.scrub(s));
  }
}

const deadlineText = (io: { timeoutMs: number }) => `no answer within ${io.timeoutMs} ms`;

/** Connects, says EHLO, upgrades with STARTTLS and authenticates as a send would; sends no mail. */
async function checkSmarthost(spec: EmailSpecOf, io: DryCheckIO): Promise<DryCheckResult> {
  try {
    const transport = await transportOf(spec, io.timeoutMs, io.signal);
    try {
      await transport.verify();
    } finally {
      transport.close();
    }
    return {
      receiver: spec.name,
      ok: true,
      detail: `SMTP smarthost answers EHLO${spec.username ? ' and accepts the credentials' : ''}`,
    };
  } catch (err) {
    if (io.signal.aborted) return { receiver: spec.name, ok: false, detail: `email ${spec.name}: ${deadlineText(io)}` };
    const o = outcomeOf(err, `email ${spec.name}`, (s) =>
      spec.password ? s.split(spec.password).join('[REDACTED]') : s,
    );
    return { receiver: spec.name, ok: false, detail: o.message ?? 'SMTP check failed' };
  }
}

export function mailOf(n: Notification, ctx: PayloadContext): { subject: string; text: string; html: string } {
  const alerts = alertTexts(n);
  const page = statusPageUrl(ctx);
  const textLine = (a: AlertText) =>
    [
      `${a.firing ? 'FIRING' : 'RESOLVED'}: ${a.summary} (${a.severity})`,
      a.description ? `  ${a.description}` : '',
      a.runbookUrl ? `  Runbook: ${a.runbookUrl}` : '',
    ]
      .filter((line) => line !== '')
      .join('\n');
  const htmlLine = (a: AlertText) =>
    `<li><b>${a.firing ? 'FIRING' : 'RESOLVED'}: ${escapeHtml(a.summary)}</b> (${escapeHtml(a.severity)})` +
    (a.description ? `<br>${escapeHtml(a.description)}` : '') +
    (a.runbookUrl ? ` <a href="${escapeHtml(a.runbookUrl)}">runbook</a>` : '') +
    '</li>';
  const text = fitItems(
    alerts,
    (shown, more) =>
      [
        ...shown.map(textLine),
        ...(more > 0 ? [andMore(more)] : []),
        ...(page ? [`Fleet status page: ${page}`] : []),
      ].join('\n\n'),
    MAX_MAIL_CHARS,
  );
  const body = fitItems(
    alerts,
    (shown, more) => `<ul>${shown.map(htmlLine).join('')}</ul>${more > 0 ? `<p>${andMore(more)}</p>` : ''}`,
    MAX_MAIL_CHARS,
  );
  const subject = title(n).replace(/[\u0000-\u001f\u007f]+/gu, ' ');
  const link = page ? `<p><a href="${escapeHtml(page)}">Fleet status page</a></p>` : '';
  const html = `<!doctype html><html><body><h2>${escapeHtml(subject)}</h2>${body}${link}</body></html>`;
  return { subject, text, html };
}
