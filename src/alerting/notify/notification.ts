// What the dispatcher hands to a receiver: one group's alerts (or an Alertmanager push batch).
import type { AlertInstance } from '../rules/instance.js';
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

/** An engine's (firing or resolved) instance as receivers are told of it. */
export function notifiedAlert(inst: AlertInstance): NotifiedAlert {
  return {
    id: inst.id,
    status: inst.state === 'resolved' ? 'resolved' : 'firing',
    labels: inst.labels,
    annotations: inst.annotations,
    startsAt: inst.firingSince ?? inst.activeAt,
    ...(inst.state === 'resolved' ? { endsAt: inst.resolvedAt } : {}),
  };
}
