// Field schemas and checks shared by the sections: rule-checked strings, bounded durations and
// byte sizes, and the timeout/interval rule (exactly as strict as Prometheus, not stricter).
import * as z from 'zod';
import { byteSizeReason, parseByteSize } from '../byteSize.js';
import { configDurationReason, parseDuration, type DurationBounds } from '../duration.js';
import { formatPath, type PathProblem, type PathSegment } from '../problems.js';
import { nameReason } from '../rules.js';

/** A string checked by a `...Reason` rule; the rule's text becomes the problem message. */
export function checked(rule: (s: string) => string | undefined, prefix = '', typeError?: string) {
  // A missing key keeps zod's message (mapped to "missing required key"); a wrong type gets ours.
  const error = typeError ? (iss: { input?: unknown }) => (iss.input === undefined ? undefined : typeError) : undefined;
  return z.string(error ? { error } : undefined).superRefine((s, ctx) => {
    const reason = rule(s);
    if (reason) ctx.addIssue({ code: 'custom', message: prefix + reason });
  });
}

/**
 * Poll intervals and request timeouts of nodes and the agent platform. The floor stops a typo
 * such as 1ns for 1s from flooding a node with requests, yet leaves sub-second polling to tests
 * and labs; a shorter timeout fails on anything but loopback. The ceiling keeps timers far below
 * setTimeout's 24.8-day limit.
 */
const POLL_DURATION: DurationBounds = { minMs: 100, maxMs: 24 * 3_600_000 };

// No JSON-schema pattern: the file may hold ${VAR} where a duration goes.
export function duration(description: string) {
  return checked(
    (s) => configDurationReason(s, POLL_DURATION),
    '',
    'invalid duration: expected a number with a unit (ns, us, ms, s, m, h), e.g. 500ms, 15s, 2m, 1h30m',
  ).meta({
    description: `${description} Go-style duration, e.g. 500ms, 15s, 2m, 1h30m; whole milliseconds, 100ms to 24h.`,
  });
}

export function byteSize(description: string, min: number, max: number) {
  return z
    .union([z.number(), z.string()], { error: 'expected a byte size such as 256MiB, or a number of bytes' })
    .superRefine((v, ctx) => {
      const reason = byteSizeReason(v);
      if (reason) return ctx.addIssue({ code: 'custom', message: `invalid byte size: ${reason}` });
      const bytes = parseByteSize(v);
      if (bytes < min || bytes > max)
        ctx.addIssue({ code: 'custom', message: `must be between ${min} and ${max} bytes` });
    })
    .meta({
      description:
        `${description} A number of bytes, or a size with unit: KB, MB, GB (1000-based), KiB, MiB, GiB ` +
        `(1024-based).`,
    });
}

export const nameOf = (what: string) => checked(nameReason, `${what} `);

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

// A duration with its own problem is reported there, not compared with another.
function durationMs(v: unknown): number | undefined {
  return typeof v === 'string' && configDurationReason(v, POLL_DURATION) === undefined ? parseDuration(v) : undefined;
}

/** A duration as configured at `path` in `obj`, or undefined when not set there. */
export interface SetDuration {
  ms: number | undefined;
  path: PathSegment[];
}

/** The first of `candidates` that is set. */
export function firstSet(candidates: Array<[Obj, string, PathSegment[]]>): SetDuration | undefined {
  for (const [obj, key, path] of candidates) {
    if (obj[key] !== undefined) return { ms: durationMs(obj[key]), path };
  }
  return undefined;
}

/**
 * Prometheus's scrape_timeout rule: a timeout set at this level may equal its interval but not
 * exceed it; an inherited or built-in timeout is silently lowered to the interval (see
 * `effectiveTimeout`), so a default never produces an error.
 */
export function timeoutProblem(
  timeout: SetDuration | undefined,
  interval: { ms: number | undefined; path?: PathSegment[]; builtin: string },
): PathProblem | undefined {
  if (!timeout || timeout.ms === undefined || interval.ms === undefined || timeout.ms <= interval.ms) return undefined;
  const from = interval.path ? formatPath(interval.path) : `the built-in default ${interval.builtin}`;
  return {
    path: timeout.path,
    message: `timeout must not exceed interval (timeout from ${formatPath(timeout.path)}, interval from ${from})`,
  };
}

/** The timeout in force: the one set at this level, else the inherited one lowered to the interval. */
export function effectiveTimeout(ownMs: number | undefined, inheritedMs: number, intervalMs: number): number {
  return ownMs ?? Math.min(inheritedMs, intervalMs);
}
