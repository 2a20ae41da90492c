// `alerting.heartbeat`: the dead-man's switch URL, method and interval (one module per section).
// The `alerting:` section module includes `heartbeatSchema` under `heartbeat`.
import * as z from 'zod';
import { configDurationReason, parseDuration, type DurationBounds } from '../../config/duration.js';

/** Why a heartbeat URL cannot be used, without repeating it (the URL usually is the secret). */
export function heartbeatUrlReason(raw: string): string | undefined {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'invalid URL: expected e.g. https://hc-ping.com/<uuid>';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'URL scheme must be http or https';
  if (u.username || u.password) return 'URL must not contain user:password';
  return undefined;
}

export const HEARTBEAT_DEFAULT_TIMEOUT = '10s';

const bounds = (minMs: number, maxMs: number, what: string): DurationBounds => ({
  minMs,
  maxMs,
  tooShort: what,
  tooLong: what,
});
const INTERVAL = bounds(5_000, 24 * 3_600_000, 'interval must be between 5s and 24h');
const TIMEOUT = bounds(100, 60_000, 'timeout must be between 100ms and 1m');

const boundedDuration = (b: DurationBounds) =>
  z.string().superRefine((s, ctx) => {
    const reason = configDurationReason(s, b);
    if (reason) ctx.addIssue({ code: 'custom', message: reason });
  });

export const heartbeatSchema = z
  .strictObject({
    url: z
      .string()
      .superRefine((s, ctx) => {
        const reason = heartbeatUrlReason(s);
        if (reason) ctx.addIssue({ code: 'custom', message: reason });
      })
      .meta({ description: 'Pinged while polling and evaluation run (a secret: never logged).' }),
    method: z
      .enum(['GET', 'POST'], { error: 'method must be GET or POST' })
      .default('GET')
      .meta({ description: 'GET, or POST with a small JSON body.' }),
    interval: boundedDuration(INTERVAL)
      .default('1m')
      .meta({ description: 'Time between pings. Go-style duration, 5s to 24h.' }),
    // No zod default: an unset timeout is min(10s, interval), as for nodes, which needs to know it was unset.
    timeout: boundedDuration(TIMEOUT)
      .optional()
      .meta({
        description:
          `Timeout of one ping; at most interval. Default: ${HEARTBEAT_DEFAULT_TIMEOUT}, or interval when shorter. ` +
          `Go-style duration, 100ms to 1m.`,
      }),
  })
  .superRefine((h, ctx) => {
    // A duration with its own problem is reported there, not compared with the other.
    if (
      h.timeout === undefined ||
      configDurationReason(h.interval, INTERVAL) ||
      configDurationReason(h.timeout, TIMEOUT)
    )
      return;
    if (parseDuration(h.timeout) > parseDuration(h.interval))
      ctx.addIssue({ code: 'custom', path: ['timeout'], message: 'timeout must be at most interval' });
  })
  .optional()
  .meta({
    description: "Dead-man's switch: a GET (or POST with a small JSON body) to url every interval while healthy.",
  });

export interface HeartbeatSettings {
  url: string;
  method: 'GET' | 'POST';
  intervalMs: number;
  timeoutMs: number;
}

export function resolveHeartbeat(raw: z.output<typeof heartbeatSchema>): HeartbeatSettings | undefined {
  if (!raw) return undefined;
  const intervalMs = parseDuration(raw.interval);
  const timeoutMs =
    raw.timeout === undefined
      ? Math.min(parseDuration(HEARTBEAT_DEFAULT_TIMEOUT), intervalMs)
      : parseDuration(raw.timeout);
  return { url: raw.url, method: raw.method, intervalMs, timeoutMs };
}

/** The URL is the check's key (healthchecks-style): the whole URL and its path are secrets. */
export function heartbeatSecrets(h: HeartbeatSettings | undefined): string[] {
  if (!h) return [];
  const u = new URL(h.url);
  return [h.url, `${u.pathname}${u.search}`].filter((s) => s.length > 1);
}
