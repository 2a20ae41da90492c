// Field schemas receiver kinds share: URLs, file paths, secrets given inline or as a file, and
// the receiver timeout. Every rule's text becomes the problem message at file:line:col.
import * as z from 'zod';
import { configDurationReason, formatDuration, type DurationBounds } from '../../config/duration.js';
import { commonUrlReason, isLoopbackHost, parseUrl } from '../../config/rules.js';
import type { SecretValue } from '../../domain.js';
import type { IssueFn, SecretSlot } from './kind.js';

/** A string checked by a `...Reason` rule. */
export const reasoned = (rule: (s: string) => string | undefined, description?: string) => {
  const s = z.string().superRefine((v, ctx) => {
    const reason = rule(v);
    if (reason) ctx.addIssue({ code: 'custom', message: reason });
  });
  return description ? s.meta({ description }) : s;
};

export const MAX_DURATION_MS = 7 * 24 * 3_600_000;

export const durationField = (description: string, bounds: DurationBounds) =>
  reasoned(
    (s) => configDurationReason(s, bounds),
    `${description} Go-style duration, e.g. 30s, 5m, 4h; whole milliseconds, ` +
      `${bounds.minMs === 0 ? '0s' : formatDuration(bounds.minMs)} to 168h.`,
  );

/** Receiver URLs: http(s), no credentials in the URL (the alertmanager kind has basicAuth for that). */
export function receiverUrlReason(raw: string): string | undefined {
  const u = parseUrl(raw);
  if (!u) return 'invalid URL: expected e.g. https://hooks.example.org/path';
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'URL scheme must be http or https';
  if (u.username || u.password) return 'URL must not contain user:password (use basicAuth or headers)';
  return undefined;
}

/** Services on the internet: https, or http to a loopback host (a local relay, a test). */
export function httpsUrlReason(raw: string): string | undefined {
  const reason = receiverUrlReason(raw);
  if (reason) return reason;
  const u = parseUrl(raw)!;
  if (u.protocol === 'http:' && !isLoopbackHost(u.hostname))
    return 'URL must be https:// (http:// only to a loopback host)';
  return undefined;
}

export const url = (description: string) => reasoned(receiverUrlReason, description);
export const httpsUrl = (description: string) => reasoned(httpsUrlReason, description);
export const baseUrl = (description: string) =>
  reasoned((s) => commonUrlReason(s, parseUrl(s)) ?? receiverUrlReason(s), description);
export const filePath = (description: string) => z.string().min(1, 'path must not be empty').meta({ description });

/** Receiver timeouts share the floor of poll intervals and probe timeouts. */
export const RECEIVER_TIMEOUT: DurationBounds = { minMs: 100, maxMs: MAX_DURATION_MS };
export const timeoutField = () =>
  durationField(
    'Deadline of one delivery attempt to this receiver, whole (connect, TLS, the HTTP exchange or SMTP dialogue; ' +
      'default 10s).',
    RECEIVER_TIMEOUT,
  ).optional();

/**
 * A secret given inline (`key`) or as a file (`keyFile`): the two optional fields of a section.
 * `value` checks the inline form (a URL rule, a length).
 */
export function secretFields<K extends string>(key: K, what: string, value: z.ZodType<string> = z.string().min(1)) {
  return {
    [key]: value.optional().meta({ description: `${what[0]!.toUpperCase()}${what.slice(1)} (secret; or ${key}File).` }),
    [`${key}File`]: filePath(`File holding the ${what}; re-read when it changes.`).optional(),
  } as { [P in K]: z.ZodOptional<z.ZodType<string>> } & { [P in `${K}File`]: z.ZodOptional<z.ZodString> };
}

/** Exactly one (or, when optional, at most one) of `key` and `keyFile`. */
export function checkSecretPair(
  raw: Record<string, unknown> | undefined,
  key: string,
  issue: IssueFn,
  required = true,
  at: Array<string | number> = [],
): void {
  if (!raw) return;
  const n = (raw[key] !== undefined ? 1 : 0) + (raw[`${key}File`] !== undefined ? 1 : 0);
  if (n > 1 || (required && n === 0)) issue(`set exactly one of ${key} and ${key}File`, at);
}

/** The secret a pair resolved to, or undefined when neither is set. */
export function secretOf(
  raw: Record<string, unknown>,
  key: string,
  file: (path: string) => string,
): SecretValue | undefined {
  const f = raw[`${key}File`];
  if (typeof f === 'string') return { file: file(f) };
  const v = raw[key];
  return typeof v === 'string' ? { value: v } : undefined;
}

/** A slot for `secrets()`, or undefined when the secret is not set. */
export const slot = (source: SecretValue | undefined, what: string): SecretSlot | undefined =>
  source ? { source, what } : undefined;
