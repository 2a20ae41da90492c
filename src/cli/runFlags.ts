// The flags a running exporter and the demo share: logging, the listen address, the web config.
import { parseListenAddress } from '../config/rules.js';
import type { DaemonOptions } from '../daemon/index.js';
import type { ListenAddress } from '../domain.js';
import { createLogger, LOG_LEVELS, type Logger } from '../logger.js';
import type { Secrets } from '../redact.js';
import { UsageError, type Values } from './options.js';

export function makeLogger(values: Values, secrets: Secrets): Logger {
  const level = (values['log-level'] as string | undefined) ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(level))
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
  const format = (values['log-format'] as string | undefined) ?? (process.stdout.isTTY ? 'pretty' : 'json');
  if (format !== 'json' && format !== 'pretty') throw new UsageError('--log-format must be json or pretty');
  return createLogger({ level: level as (typeof LOG_LEVELS)[number], pretty: format === 'pretty', secrets });
}

export function listenArg(values: Values): ListenAddress | undefined {
  const value = values.listen as string | undefined;
  if (value === undefined) return undefined;
  try {
    return parseListenAddress(value);
  } catch (err) {
    throw new UsageError(`--listen: ${(err as Error).message}`);
  }
}

/** Web config (basic auth, TLS) from --web.config.file, loaded lazily so plain runs need none of it. */
export async function webOptions(values: Values): Promise<Partial<DaemonOptions>> {
  const path = values['web.config.file'] as string | undefined;
  if (!path) return {};
  const { loadWebConfig } = await import('../web/webConfig.js');
  // The web server applies basic auth and the configured headers to every path, as exporter-toolkit does.
  return { web: await loadWebConfig(path) };
}
