// The child processes a bench process starts (simulators, phases in fresh processes) end with it,
// however it ends: an error, process.exit() with a close() still pending, or a signal sent to the
// bench alone (kill PID; a terminal's Ctrl-C reaches the whole process group anyway). Left running
// as orphans they would hold thousands of sockets and share the machine with later measurements.
import type { ChildProcess } from 'node:child_process';
import { constants } from 'node:os';

const live = new Set<ChildProcess>();
let hooked = false;

function killLive(): void {
  for (const child of live) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** Registers a child to be killed if the bench process ends before the child does. */
export function endsWithBench<T extends ChildProcess>(child: T): T {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (!hooked) {
    hooked = true;
    process.once('exit', killLive);
    // A signal's default action ends the process without 'exit' events: exit instead, with the
    // status the signal would have given.
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
      process.once(signal, () => process.exit(128 + constants.signals[signal]));
  }
  return child;
}
