// Stopping cleanly on SIGTERM/SIGINT: no new probes, in-flight ones finish within a bound,
// evidence flushed; a watchdog ends a shutdown a stalled disk would hold forever.
import type { Logger } from '../logger.js';
import { isSignalEcho, releaseStartupStop, type StopSignalSeen } from './startupSignals.js';

/** Longest a clean shutdown may take (probes in flight get 5 s, then evidence is flushed). */
export const SHUTDOWN_WATCHDOG_MS = 20_000;

/** What asked for the stop, as logged: a signal, or another reason (the demo's parent went away). */
export type StopReason = { signal: NodeJS.Signals } | { why: string };

/** Runs the stop once, on the first request, then exits. */
export type StopRequest = (reason: StopReason) => void;

/**
 * Installs the stop handlers and returns the stop request (for other reasons to stop, such as the
 * demo's parent going away). A stop asked for during start-up (held by the entry point) runs now.
 */
export function onShutdown(log: Logger, stop: () => Promise<void>): StopRequest {
  let stopping = false;
  let first: StopSignalSeen | undefined;
  const request: StopRequest = (reason) => {
    const signal = 'signal' in reason ? reason.signal : undefined;
    if (stopping) {
      // Another reason to stop (the parent went away) while stopping changes nothing; so does the
      // echo of the first signal (one Ctrl-C passed on by npm or npx).
      if (signal === undefined || isSignalEcho(first, signal, performance.now())) return;
      // A second signal means "now": the operator gave up waiting.
      log.warn(reason, 'second signal during shutdown: exiting at once');
      process.exit(1);
    }
    stopping = true;
    if (signal) first = { signal, at: performance.now() };
    log.info(reason, 'shutting down');
    // A stalled disk must not hold the process forever.
    setTimeout(() => {
      log.error({ ms: SHUTDOWN_WATCHDOG_MS }, 'shutdown did not finish in time: exiting');
      process.exit(1);
    }, SHUTDOWN_WATCHDOG_MS).unref();
    stop()
      .then(() => {
        log.info('stopped');
        process.exit(0);
      })
      .catch((err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  const handler = (signal: NodeJS.Signals) => request({ signal });
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
  // Released after the handlers above are in place, so no signal falls between the two.
  const early = releaseStartupStop();
  if (early) handler(early);
  return request;
}
