// SIGTERM, SIGINT and SIGHUP before the exporter is ready. Their default action ends the process
// at once, with no log line and no clean stop, and systemd (ExecStop, ExecReload) or an operator
// may send them while the modules load and the daemon starts (about a second on a busy host). The
// entry point holds them from its first line; the exporter logs them once it has a logger, stops
// cleanly once it has started, and reloads once it is ready, however many SIGHUPs arrived.
// Imports nothing, so holding them costs no load time.

export interface StartupSignalNotes {
  /** A SIGHUP held (one before the note, and each until the release). */
  hup(): void;
  /** A stop signal held; `again` when a stop was already asked for (the process then exits). */
  stop(signal: NodeJS.Signals, again: boolean): void;
}

/**
 * One Ctrl-C often reaches the process twice: the terminal signals the whole foreground process
 * group, and a parent in that group (npm start, npx) passes its own copy on. A repeat of the same
 * stop signal this soon after the first is that copy, not an operator asking again.
 */
export const SIGNAL_ECHO_MS = 1_500;

/** A stop signal received, and when (monotonic ms). */
export interface StopSignalSeen {
  signal: NodeJS.Signals;
  at: number;
}

/** Whether `signal` now is the echo of the stop signal `first` (the same Ctrl-C), not a second request. */
export function isSignalEcho(first: StopSignalSeen | undefined, signal: NodeJS.Signals, now: number): boolean {
  return first !== undefined && first.signal === signal && now - first.at < SIGNAL_ECHO_MS;
}

let hupPending = false;
let stopPending: NodeJS.Signals | undefined;
let stopSeen: StopSignalSeen | undefined;
let noteHup: StartupSignalNotes['hup'] | undefined;
let noteStop: StartupSignalNotes['stop'] | undefined;

const heldHup = (): void => {
  hupPending = true;
  noteHup?.();
};

const heldStop = (signal: NodeJS.Signals): void => {
  const now = performance.now();
  if (isSignalEcho(stopSeen, signal, now)) return;
  const again = stopPending !== undefined;
  stopPending ??= signal;
  stopSeen ??= { signal, at: now };
  noteStop?.(signal, again);
  // A second signal means "now", as during a shutdown: the operator gave up waiting.
  if (again) process.exit(1);
};

export function holdStartupSignals(): void {
  // Stops first: a caught SIGHUP then shows that all three are held (Node.js itself catches
  // SIGTERM/SIGINT from its start, to restore the terminal before it dies of them).
  process.on('SIGTERM', heldStop);
  process.on('SIGINT', heldStop);
  process.on('SIGHUP', heldHup);
}

/** Calls the notes for the signals held so far, and for each one that arrives until its release. */
export function noteStartupSignals(notes: StartupSignalNotes): void {
  noteHup = notes.hup;
  noteStop = notes.stop;
  if (hupPending) notes.hup();
  if (stopPending) notes.stop(stopPending, false);
}

/** Stops holding SIGHUP (install the real handler first); true when one arrived meanwhile. */
export function releaseStartupHup(): boolean {
  process.off('SIGHUP', heldHup);
  noteHup = undefined;
  const was = hupPending;
  hupPending = false;
  return was;
}

/**
 * Stops holding SIGTERM/SIGINT (install the real handlers first); the signal that asked for a stop meanwhile, if any.
 */
export function releaseStartupStop(): NodeJS.Signals | undefined {
  process.off('SIGTERM', heldStop);
  process.off('SIGINT', heldStop);
  noteStop = undefined;
  const was = stopPending;
  stopPending = undefined;
  stopSeen = undefined;
  return was;
}
