// Reloads on SIGHUP and on changes of the config file: validated first, the running config kept
// on error (reload.ts). The directory is watched: editors and ConfigMap updates replace the file.
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Logger } from '../logger.js';
import { configReloader, type ConfigScope, type Reloadable } from './reload.js';
import { releaseStartupHup } from './startupSignals.js';

/** Events closer together than this are one reload (editors write a file in several steps). */
const SETTLE_MS = 300;

/**
 * Whether a change in the config directory may have changed the config: the file itself, or the
 * `..data` / `..<version>` entries of a Kubernetes ConfigMap swap. Anything else there (a log
 * file, an editor's swap file) is not read at all. An event without a name is checked.
 */
export function concernsConfig(filename: string | Buffer | null, configPath: string): boolean {
  if (filename === null) return true;
  const name = filename.toString();
  return name === basename(configPath) || name.startsWith('..');
}

/** Reload on SIGHUP and on changes of the file; returns the watcher to close at shutdown. */
export function watchConfig(path: string, daemon: Reloadable, log: Logger, scope: ConfigScope): FSWatcher | undefined {
  let timer: NodeJS.Timeout | undefined;
  const reload = configReloader(path, daemon, log, scope);
  process.on('SIGHUP', () => void reload('SIGHUP'));
  // Released after the handler above is in place, so no SIGHUP falls between the two.
  if (releaseStartupHup()) void reload('SIGHUP');
  try {
    // Any event in the directory may mean a new config: Kubernetes swaps a `..data` symlink and no
    // event names the file; the reloader skips events that changed nothing.
    const w = watch(dirname(path), (_event, filename) => {
      if (!concernsConfig(filename, path)) return;
      clearTimeout(timer);
      timer = setTimeout(() => void reload('file changed'), SETTLE_MS);
    });
    w.unref();
    return w;
  } catch (err) {
    log.warn({ err }, 'cannot watch the config file; reload with SIGHUP');
    return undefined;
  }
}
