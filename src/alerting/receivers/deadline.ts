// One overall deadline for every delivery attempt and every check of a receiver, whatever its
// transport: at `timeoutMs` the kind's signal is aborted (a transport that is not the HTTP client,
// SMTP, closes its socket then), and a kind that has not returned a moment later is answered for: a
// retryable failure, so the queue retries and counts it, and notify-test says so, instead of
// waiting on a server that drips its answer for ever.

/** How long after the abort a kind may take to report its own failure before it is answered for. */
const GRACE_MS = 1_000;

export async function withDeadline<T>(
  timeoutMs: number,
  run: (signal: AbortSignal) => Promise<T>,
  late: (message: string) => T,
): Promise<T> {
  const ctl = new AbortController();
  const message = `no answer within ${timeoutMs} ms`;
  let hard: NodeJS.Timeout | undefined;
  const abort = setTimeout(() => ctl.abort(new Error(message)), timeoutMs);
  const overdue = new Promise<T>((resolve) => {
    ctl.signal.addEventListener('abort', () => (hard = setTimeout(() => resolve(late(message)), GRACE_MS)), {
      once: true,
    });
  });
  try {
    return await Promise.race([run(ctl.signal), overdue]);
  } finally {
    clearTimeout(abort);
    clearTimeout(hard);
  }
}
