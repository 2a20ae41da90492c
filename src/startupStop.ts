// SIGTERM/SIGINT before the exporter is ready. Their default action ends the process at once, with
// no log line and no clean stop, and systemd or an operator may send them while the modules load
// and the daemon starts. The entry point holds them from its first line; the exporter logs the
// request once it has a logger and stops cleanly once it has started. Imports nothing, so holding
// them costs no load time.

let pending: NodeJS.Signals | undefined;
let note: ((signal: NodeJS.Signals, again: boolean) => void) | undefined;

const held = (signal: NodeJS.Signals): void => {
  const again = pending !== undefined;
  pending ??= signal;
  note?.(signal, again);
  // A second signal means "now", as during a shutdown: the operator gave up waiting.
  if (again) process.exit(1);
};

export function holdStartupStop(): void {
  process.on('SIGTERM', held);
  process.on('SIGINT', held);
}

/** Calls `log` for a stop requested so far, and for each signal that arrives until the release. */
export function noteStartupStop(log: (signal: NodeJS.Signals, again: boolean) => void): void {
  note = log;
  if (pending) log(pending, false);
}

/** Stops holding (install the real handlers first); the signal that asked for a stop meanwhile, if any. */
export function releaseStartupStop(): NodeJS.Signals | undefined {
  process.off('SIGTERM', held);
  process.off('SIGINT', held);
  note = undefined;
  const was = pending;
  pending = undefined;
  return was;
}
