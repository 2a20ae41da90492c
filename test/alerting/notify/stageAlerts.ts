// Alert instances for the notification stages' unit tests (fake times, fingerprints as ids).
import type { AlertInstance } from '../../../src/alerting/rules/instance.js';
import { fingerprint } from '../../../src/alerting/rules/labels.js';
import type { NotifiedAlert } from '../../../src/alerting/notify/notification.js';

export const S = 1000;
export const M = 60 * S;
export const H = 60 * M;
export const T0 = Date.UTC(2026, 10, 28, 12, 0, 0);

export function firing(node: string, labels: Record<string, string> = {}, at = T0): AlertInstance {
  const all = { alertname: 'LedgerNodeDown', severity: 'critical', network: 'main', node, ...labels };
  return {
    id: fingerprint(all),
    alertname: all.alertname,
    labels: all,
    annotations: { summary: `${node} down` },
    state: 'firing',
    value: 0,
    activeAt: at - M,
    firingSince: at,
  };
}

export const resolved = (a: AlertInstance, at: number): AlertInstance => ({ ...a, state: 'resolved', resolvedAt: at });

export function told(id: string, status: NotifiedAlert['status'] = 'firing', endsAt?: number): NotifiedAlert {
  return {
    id,
    status,
    labels: { alertname: 'X', node: id },
    annotations: {},
    startsAt: T0,
    ...(endsAt !== undefined ? { endsAt } : {}),
  };
}
