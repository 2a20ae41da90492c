// A render written in steps: each step writes whole blocks synchronously, and a streamed scrape
// may pause between two steps (for a free chunk) while a whole render runs them all at once.

/** Runs every step at once. */
export function drain(steps: Iterable<unknown>): void {
  const it = steps[Symbol.iterator]();
  while (it.next().done !== true) continue;
}
