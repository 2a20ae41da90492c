// Alert cards grouped by alert name and state, so a phone shows "5 alerts: LedgerNodeDown ×5"
// in one line (expandable) instead of five cards above the node list. Shared by the server's
// page (fleetPage.ts) and the page script (browser/fleet.ts): no imports, no DOM, no Node.

/** Cards of one alert name and state from this many on are shown as one group. */
export const GROUP_FROM = 2;

export interface AlertGroup<A> {
  /** "firing LedgerNodeDown": the group's id on the page (its open state survives a refresh). */
  key: string;
  name: string;
  state: string;
  /** The group's cards, in the list's order; one card: shown alone. */
  alerts: A[];
}

/** Groups in the order of their first (worst) card: the list's worst-first order is kept. */
export function groupAlerts<A extends { name: string; state: string }>(list: readonly A[]): AlertGroup<A>[] {
  const groups = new Map<string, AlertGroup<A>>();
  for (const a of list) {
    const key = `${a.state} ${a.name}`;
    const g = groups.get(key);
    if (g) g.alerts.push(a);
    else groups.set(key, { key, name: a.name, state: a.state, alerts: [a] });
  }
  return [...groups.values()];
}

/** "5 alerts: LedgerNodeDown ×5, firing". */
export const groupWords = (g: AlertGroup<unknown>): string =>
  `${g.alerts.length} alerts: ${g.name} \u00d7${g.alerts.length}, ${g.state}`;
