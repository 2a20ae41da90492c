import { pino, type Logger, type LevelWithSilent } from 'pino';
import { Secrets } from './redact.js';

export type { Logger };

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * JSON logs by default (for log shippers); `pretty` for a terminal, in colour only when stdout is
 * one (a file or pipe gets no escape codes). Secret-bearing fields are redacted by path and every
 * message is scrubbed of known secret values.
 */
export function createLogger(
  opts: {
    level?: LevelWithSilent;
    pretty?: boolean;
    destination?: NodeJS.WritableStream;
    /** The run's secrets (config ones are added once accepted). */ secrets?: Secrets;
  } = {},
): Logger {
  const secrets = opts.secrets ?? new Secrets();
  const options = {
    level: opts.level ?? 'info',
    base: undefined,
    redact: {
      paths: [
        'headers.authorization',
        'headers.Authorization',
        '*.headers.authorization',
        'apiKey',
        '*.apiKey',
        'password',
        '*.password',
      ],
      censor: '[REDACTED]',
    },
    hooks: {
      logMethod(this: Logger, args: unknown[], method: (...a: unknown[]) => void) {
        method.apply(
          this,
          args.map((a) => (typeof a === 'string' ? logText(a, secrets) : a)),
        );
      },
    },
    formatters: {
      log(obj: Record<string, unknown>) {
        return scrubObject(obj, secrets) as Record<string, unknown>;
      },
    },
  };
  if (opts.pretty) {
    return pino(
      options,
      pino.transport({
        target: 'pino-pretty',
        options: { colorize: Boolean(process.stdout.isTTY), translateTime: 'SYS:standard' },
      }),
    );
  }
  return opts.destination ? pino(options, opts.destination) : pino(options);
}

function scrubObject(value: unknown, secrets: Secrets, depth = 0): unknown {
  if (depth > 6) return value;
  if (typeof value === 'string') return logText(value, secrets);
  if (value instanceof Error) return { type: value.name, message: logText(value.message, secrets) };
  if (Array.isArray(value)) return value.map((v) => scrubObject(v, secrets, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = scrubObject(v, secrets, depth + 1);
    return out;
  }
  return value;
}

/** C0 and C1 controls, DEL and the Unicode line and paragraph separators. */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** A text as logged: scrubbed, then its control characters written as escapes (`\n`, `\u001b`). */
export function logText(text: string, secrets: Secrets): string {
  const clean = secrets.scrub(text);
  CONTROLS.lastIndex = 0;
  if (!CONTROLS.test(clean)) return clean;
  return clean.replace(CONTROLS, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
