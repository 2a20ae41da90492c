// A config reload (SIGHUP or a change of the file): the file is read, validated and applied as one
// config, or rejected whole. Parsing registers nothing, so a rejected config leaves no trace: its
// secrets never reach the run's Secrets, and no node, route or metric of it appears.
import { readConfig } from '../config/parse.js';
import { ConfigError, formatProblem } from '../config/problems.js';
import type { ExporterConfig } from '../config/exporterConfig.js';
import type { Logger } from '../logger.js';
import { readUtf8File } from '../files/utf8.js';

export interface Reloadable {
  config(): ExporterConfig;
  applyConfig(config: ExporterConfig): void;
  noteReloadFailure(problems?: string[]): void;
}

/** What a reload asks of the shard assignment: the shard's part of a config, and how to name it. */
export interface ConfigScope {
  apply(config: ExporterConfig): ExporterConfig;
  sharded(): boolean;
  summary(): object;
}

/**
 * Returns the reload to run on each event, with why it runs ('SIGHUP', 'file changed'). Reloads
 * run one at a time, in the order asked: one that arrives while another runs waits for it and then
 * reads the file as it is by then. Run at once, an older read that finished last (a slow disk, a
 * file being replaced) would apply an older config over a newer one.
 */
export function configReloader(
  path: string,
  daemon: Reloadable,
  log: Logger,
  scope: ConfigScope,
): (why: string) => Promise<void> {
  const once = reloadOnce(path, daemon, log, scope);
  let queue: Promise<void> = Promise.resolve();
  let running = 0;
  return (why) => {
    if (running > 0) log.debug({ why }, 'configuration reload waits for the one in progress');
    running++;
    const run = queue.then(() => once(why)).finally(() => running--);
    // A reload that failed unexpectedly must not stop the ones after it.
    queue = run.catch(() => undefined);
    return run;
  };
}

function reloadOnce(path: string, daemon: Reloadable, log: Logger, scope: ConfigScope): (why: string) => Promise<void> {
  // The text read last makes events that changed nothing (other files, editors writing twice)
  // free: no reload, no count, no log.
  let lastText: string | undefined;
  let lastKey = JSON.stringify(daemon.config());
  return async (why) => {
    try {
      const text = await readUtf8File(path);
      if (why === 'file changed' && text === lastText) return;
      lastText = text;
      const next = scope.apply(await readConfig(text, { file: path }));
      const key = JSON.stringify(next);
      if (why === 'file changed' && key === lastKey) {
        log.info({ why }, 'configuration unchanged');
        return;
      }
      lastKey = key;
      daemon.applyConfig(next);
      log.info({ why, ...(scope.sharded() ? scope.summary() : {}) }, 'configuration applied');
    } catch (err) {
      const problems = err instanceof ConfigError ? err.problems.map(formatProblem) : [(err as Error).message];
      daemon.noteReloadFailure(problems);
      log.error({ why, problems }, 'configuration reload rejected; the running configuration stays');
    }
  };
}
