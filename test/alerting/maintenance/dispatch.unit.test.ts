// Maintenance windows and the Prometheus-style push to Alertmanager receivers: nothing is pushed
// for an alert that fired and resolved inside a window, not even after the window ends; one still
// firing is pushed when the window ends.
import { describe, expect, it } from 'vitest';
import { NotificationDispatcher } from '../../../src/alerting/notify/dispatcher.js';
import type { AlertInstance } from '../../../src/alerting/rules/instance.js';
import { fingerprint } from '../../../src/alerting/rules/labels.js';
import { DEFAULT_TIMING } from '../../../src/alerting/notify/routing.js';

const S = 1000;
const M = 60 * S;
const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
const WINDOW_END = T0 + 10 * M;

function firing(node: string): AlertInstance {
  const labels = { alertname: 'LedgerNodeDown', severity: 'critical', node, network: 'test' };
  return {
    id: fingerprint(labels),
    alertname: 'LedgerNodeDown',
    labels,
    annotations: {},
    state: 'firing',
    value: 0,
    activeAt: T0 - M,
    firingSince: T0,
  };
}

describe('push receivers and maintenance windows', () => {
  it('a push receiver hears nothing resolved inside the window; a still firing one once it ends', () => {
    const d = new NotificationDispatcher({
      routing: { ...DEFAULT_TIMING, groupBy: ['alertname'], routes: [], receivers: ['am'] },
      pushReceivers: new Set(['am']),
      isSilenced: (l, now) => (l.network === 'test' && now < WINDOW_END ? 'weekly' : undefined),
    });
    const heals = firing('a');
    const stays = firing('b');
    const pushed: Array<{ at: number; node: string; status: string }> = [];
    const step = (instances: AlertInstance[], from: number, to: number) => {
      d.update(instances, from);
      for (let t = from; t <= to; t += 15 * S)
        for (const n of d.tick(t))
          for (const a of n.alerts) pushed.push({ at: t, node: a.labels.node!, status: a.status });
    };
    step([heals, stays], T0, T0 + 5 * M);
    step([{ ...heals, state: 'resolved', resolvedAt: T0 + 5 * M }, stays], T0 + 5 * M + S, T0 + 20 * M);
    expect(pushed.filter((p) => p.node === 'a')).toEqual([]);
    const b = pushed.filter((p) => p.node === 'b');
    // First tick at or after the window's end (ticks run every 15 s from T0 + 5m01s).
    expect(b[0]).toEqual({ at: WINDOW_END + S, node: 'b', status: 'firing' });
  });
});
