// SIGHUP before the exporter is ready. The signal's default action ends the process, and
// systemd's ExecReload sends it whenever asked, also while the modules load and the daemon
// starts (about a second on a busy host). The entry point holds it from its first line; the
// exporter logs it once it has a logger and reloads once it is ready, however many arrived.
// Imports nothing, so holding it costs no load time.

let pending = false;
let note: (() => void) | undefined;

const held = (): void => {
  pending = true;
  note?.();
};

export function holdStartupHup(): void {
  process.on('SIGHUP', held);
}

/** Calls `log` for a SIGHUP held so far, and for each one that arrives until the release. */
export function noteStartupHup(log: () => void): void {
  note = log;
  if (pending) log();
}

/** Stops holding SIGHUP (install the real handler first); true when one arrived meanwhile. */
export function releaseStartupHup(): boolean {
  process.off('SIGHUP', held);
  note = undefined;
  const was = pending;
  pending = false;
  return was;
}
