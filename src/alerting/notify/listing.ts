// Alert instances as people and other parts read them: the /api/alerts listing (times on the
// wall clock) and the firing/resolved changes the status page records.
import { toWall, type Clock } from '../../clock/clock.js';
import type { NotificationDispatcher } from './dispatcher.js';
import type { AlertInstance } from '../rules/instance.js';
import type { Labels } from '../rules/types.js';

export interface AlertChange {
  name: string;
  labels: Labels;
  state: 'firing' | 'resolved';
  summary?: string;
}

export interface ListedAlert {
  name: string;
  labels: Labels;
  annotations: Record<string, string>;
  state: 'pending' | 'firing';
  value: number;
  activeAt: string;
  firingSince?: string;
  lastNotifiedAt?: string;
  silencedBy?: string;
}

/** Pending and firing instances with their delivery facts; `active` holds monotonic times. */
export function listAlerts(
  active: readonly AlertInstance[],
  dispatcher: NotificationDispatcher,
  clock: Clock,
): ListedAlert[] {
  const now = clock.mono();
  const iso = (ms: number) => new Date(toWall(clock, ms)).toISOString();
  return active.map((i) => {
    const notified = dispatcher.lastNotifiedAt(i);
    const silencedBy = dispatcher.silencedBy(i.labels, now);
    return {
      name: i.alertname,
      labels: i.labels,
      annotations: i.annotations,
      state: i.state as 'pending' | 'firing',
      value: i.value,
      activeAt: iso(i.activeAt),
      ...(i.firingSince !== undefined ? { firingSince: iso(i.firingSince) } : {}),
      ...(notified !== undefined ? { lastNotifiedAt: iso(notified) } : {}),
      ...(silencedBy ? { silencedBy } : {}),
    };
  });
}

/** Tells `onChange` of each instance that started firing or resolved since `before`; returns the states now. */
export function announceChanges(
  instances: readonly AlertInstance[],
  before: ReadonlyMap<string, string>,
  onChange: ((e: AlertChange) => void) | undefined,
): Map<string, string> {
  const next = new Map<string, string>();
  for (const i of instances) {
    next.set(i.id, i.state);
    const was = before.get(i.id);
    if (i.state !== was && i.state !== 'pending' && (i.state === 'firing' || was === 'firing')) {
      onChange?.({ name: i.alertname, labels: i.labels, state: i.state, summary: i.annotations.summary });
    }
  }
  return next;
}
