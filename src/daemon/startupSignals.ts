// SIGTERM, SIGINT and SIGHUP before the exporter is ready. Their default action ends the process
// at once, with no log line and no clean stop, and systemd (ExecStop, ExecReload) or an operator
// may send them while the modules load and the daemon starts (about a second on a busy host). The
// entry point holds them from its first line; the exporter logs them once it has a logger, stops
// cleanly once it has started, and reloads once it is ready, however many SIGHUPs arrived. A start-up
// that does not finish within STARTUP_STOP_BOUND_MS of a held stop ends the process anyway (exit 1):
// a stop is never ignored for ever. Imports nothing, so holding them costs no load time.

export interface StartupSignalNotes {
  /** A SIGHUP held (one before the note, and each until the release). */
  hup(): void;
  /** A stop signal held; `again` when a stop was already asked for (the process then exits). */
  stop(signal: NodeJS.Signals, again: boolean): void;
  /** The start-up ran STARTUP_STOP_BOUND_MS past a held stop: the process exits 1 right after. */
  stuck?(boundMs: number): void;
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

/** How long a start-up may run on after a stop was asked for (as long as a clean shutdown may take). */
export const STARTUP_STOP_BOUND_MS = 20_000;

let hupPending = false;
let stopPending: NodeJS.Signals | undefined;
let stopSeen: StopSignalSeen | undefined;
let noteHup: StartupSignalNotes['hup'] | undefined;
let noteStop: StartupSignalNotes['stop'] | undefined;
let noteStuck: StartupSignalNotes['stuck'] | undefined;
let bound: ReturnType<typeof setTimeout> | undefined;

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
  bound ??= setTimeout(() => {
    noteStuck?.(STARTUP_STOP_BOUND_MS);
    process.exit(1);
  }, STARTUP_STOP_BOUND_MS);
  // Unref'd: a start-up that has nothing left to run ends by itself.
  bound.unref?.();
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
  noteStuck = notes.stuck;
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
  clearTimeout(bound);
  bound = undefined;
  noteStop = undefined;
  noteStuck = undefined;
  const was = stopPending;
  stopPending = undefined;
  stopSeen = undefined;
  return was;
}
