// A started daemon kept running until it is asked to stop: the config file watched (when there is
// one), SIGTERM/SIGINT handled, and what ran beside it (the demo's simulated fleet) stopped after it.
import type { Logger } from '../logger.js';
import { watchConfig } from './configWatch.js';
import type { Daemon } from './index.js';
import type { ConfigScope } from './reload.js';
import { onShutdown, type StopRequest } from './shutdown.js';

export interface KeepRunningOptions {
  log: Logger;
  /** The config file to reload from (SIGHUP, changes), with this replica's part of it. */
  config?: { path: string; scope: ConfigScope };
  /** Stopped after the daemon, in order. */
  alsoStop?: Array<() => Promise<void>>;
}

/** Returns the stop request, for reasons to stop other than signals. */
export function keepRunning(daemon: Daemon, opts: KeepRunningOptions): StopRequest {
  const watcher = opts.config && watchConfig(opts.config.path, daemon, opts.log, opts.config.scope);
  return onShutdown(opts.log, async () => {
    watcher?.close();
    await daemon.close();
    for (const stop of opts.alsoStop ?? []) await stop();
  });
}

/** How often a demo checks that the process that started it (npm, a shell) is still there. */
const PARENT_CHECK_MS = 1_000;

/**
 * Stops when the parent process goes away: `npm start` killed or interrupted does not always pass
 * the signal on, and a demo left running holds its ports. A process whose parent is init (a
 * container's PID 1, a service) has nothing to follow.
 */
export function stopWithParent(stop: StopRequest): void {
  const parent = process.ppid;
  if (parent <= 1) return;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    stop({ why: `parent process ${parent} exited` });
  }, PARENT_CHECK_MS);
  timer.unref();
}
