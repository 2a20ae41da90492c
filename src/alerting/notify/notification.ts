// What the dispatcher hands to a receiver: one group's alerts (or an Alertmanager push batch).
import type { Labels } from '../rules/types.js';

export interface NotifiedAlert {
  id: string;
  status: 'firing' | 'resolved';
  labels: Labels;
  annotations: Readonly<Record<string, string>>;
  /** ms */
  startsAt: number;
  /** ms; resolve time of a resolved alert. */
  endsAt?: number;
}

export interface Notification {
  receiver: string;
  /** Stable text naming the group, e.g. `0:{alertname="LedgerNodeDown",network="main"}`. */
  groupKey: string;
  groupLabels: Labels;
  /** firing when any alert of the group fires. */
  status: 'firing' | 'resolved';
  alerts: NotifiedAlert[];
  /** ms */
  createdAt: number;
}
