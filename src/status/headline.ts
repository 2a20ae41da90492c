// What the top of the fleet page says first: the active alerts worst first (firing before pending,
// critical before info), the Watchdog left out of the incidents (it firing means the alerting
// pipeline is alive, said in the small print), and a headline counting everything that is wrong:
// watched entries, firing alerts and nodes.
import type { AlertView } from './types.js';
import type { WatchRow } from './watchSection.js';

/** Always firing while the alerting pipeline works: not an incident (rules/definitions/pipeline.ts). */
const WATCHDOG = 'LedgerExporterWatchdog';
const SEVERITY_RANK: Record<string, number> = { critical: 0, warning: 1, info: 2 };

export interface PageAlerts {
  /** Worst first: firing, then by severity, then the oldest. */
  alerts: AlertView[] | null;
  /** The Watchdog is firing: notifications can go out. Null when the page has no alerting. */
  pipelineAlive: boolean | null;
}

export function pageAlerts(all: AlertView[] | null | undefined): PageAlerts {
  if (all === null || all === undefined) return { alerts: null, pipelineAlive: null };
  const rank = (a: AlertView) => SEVERITY_RANK[a.severity] ?? 3;
  const alerts = all
    .filter((a) => a.name !== WATCHDOG)
    .sort(
      (a, b) =>
        (a.state === 'firing' ? 0 : 1) - (b.state === 'firing' ? 0 : 1) ||
        rank(a) - rank(b) ||
        (a.since ?? Infinity) - (b.since ?? Infinity) ||
        a.name.localeCompare(b.name),
    );
  return { alerts, pipelineAlive: all.some((a) => a.name === WATCHDOG && a.state === 'firing') };
}

const WATCH_WRONG: Partial<Record<WatchRow['status'], string>> = { down: 'with a problem', degraded: 'at risk' };
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "1 validator with a problem · 2 alerts firing · 1 down · 0 degraded · 5 up". */
export function headlineText(
  nodes: Record<string, number>,
  watch: readonly WatchRow[],
  alerts: readonly AlertView[] | null,
): string {
  const wrong = new Map<string, number>();
  for (const w of watch) {
    const words = WATCH_WRONG[w.status];
    if (words) wrong.set(`${w.kind}\u0000${words}`, (wrong.get(`${w.kind}\u0000${words}`) ?? 0) + 1);
  }
  const parts = [...wrong].map(([key, n]) => {
    const [kind, words] = key.split('\u0000') as [string, string];
    return `${plural(n, kind)} ${words}`;
  });
  const firing = (alerts ?? []).filter((a) => a.state === 'firing').length;
  if (alerts !== null) parts.push(`${plural(firing, 'alert')} firing`);
  parts.push(
    `${nodes.down} down · ${nodes.degraded} degraded · ${nodes.up} up` +
      (nodes.unknown ? ` · ${nodes.unknown} not polled yet` : ''),
  );
  return parts.join(' · ');
}
