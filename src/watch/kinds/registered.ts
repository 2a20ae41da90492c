// What any daemon may ask of the registered watch kinds without loading them: which fan-out probes
// are their reads, and their ledger_watch_* families. registry.ts (every kind's code) loads with the
// first config that has a `watch:` or `alerting:` section, or with whatever imports it; until then
// no kind is registered, so there are none of either.
import type { WatchFamily } from '../families.js';

interface RegisteredKinds {
  families(): readonly WatchFamily[];
  isRead(name: string): boolean;
}

let kinds: RegisteredKinds | undefined;

/** Called once by registry.ts as it loads. */
export function publishWatchKinds(k: RegisteredKinds): void {
  kinds = k;
}

/** The ledger_watch_* families of the registered kinds: each kind's, then those of every kind. */
export function watchFamilies(): readonly WatchFamily[] {
  return kinds?.families() ?? [];
}

/** Whether a probe is one of a registered kind's reads (they read the `watch:` section's entries). */
export function isWatchKindRead(name: string): boolean {
  return kinds?.isRead(name) ?? false;
}
