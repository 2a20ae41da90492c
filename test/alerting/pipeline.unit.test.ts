// The alerting pipeline's own alerts: the Watchdog always fires and goes to alertmanager
// receivers only; NotificationsFailing names the receiver and never goes to it.
import { describe, expect, it } from 'vitest';
import { findDefinition } from '../../src/alerting/rules/definitions/index.js';
import { NOTIFICATIONS_FAILING, WATCHDOG } from '../../src/alerting/rules/definitions/pipeline.js';
import { deliveryTargets } from '../../src/alerting/notify/deliveryFilter.js';
import { RangeStore } from '../../src/alerting/rules/range.js';
import type { EvalContext, ExporterSignals } from '../../src/alerting/rules/types.js';

const receivers = [
  { name: 'am', kind: 'alertmanager' },
  { name: 'am-dr', kind: 'alertmanager' },
  { name: 'slack', kind: 'slack' },
  { name: 'pager', kind: 'pagerduty' },
];

function evaluator(name: string) {
  const def = findDefinition(name)!;
  const store = new RangeStore();
  return (exporter: ExporterSignals, now: number) => {
    const range: EvalContext['range'] = (k, v, w) => store.read(k, v, w, now);
    const ctx = { snapshot: undefined, exporter, params: def.defaults, range } as unknown as EvalContext;
    return def.evaluate!(ctx);
  };
}

const signals = (notifications: Record<string, { success: number; failure: number }>): ExporterSignals => ({
  pollOverruns: new Map(),
  evidenceWriteErrors: 0,
  notifications: new Map(Object.entries(notifications)),
});

describe('LedgerExporterWatchdog', () => {
  it('always fires, severity info, and reaches every alertmanager receiver whatever the route picked', () => {
    const def = findDefinition(WATCHDOG)!;
    expect(def.defaults.severity).toBe('info');
    expect(evaluator(WATCHDOG)(signals({}), 0)).toEqual([{ labels: {}, value: 1 }]);
    expect(deliveryTargets(def.delivery, { alertname: WATCHDOG }, [], receivers).map((r) => r.name)).toEqual([
      'am',
      'am-dr',
    ]);
    expect(deliveryTargets(def.delivery, { alertname: WATCHDOG }, receivers, receivers).map((r) => r.name)).toEqual([
      'am',
      'am-dr',
    ]);
  });
});

describe('LedgerExporterNotificationsFailing', () => {
  it('fires for a receiver that failed without one success in 15 minutes, not for one that also succeeds', () => {
    const evaluate = evaluator(NOTIFICATIONS_FAILING);
    let out: ReturnType<typeof evaluate> = [];
    for (let i = 0; i <= 10; i++) {
      out = evaluate(
        signals({ pager: { success: 4, failure: i * 2 }, slack: { success: 10 + i, failure: i } }),
        i * 60_000,
      );
    }
    expect(out).toEqual([{ labels: { receiver: 'pager' }, value: 20 }]);
    // 16 minutes without a failure: the failures left the window.
    for (let i = 11; i <= 27; i++) out = evaluate(signals({ pager: { success: 4, failure: 20 } }), i * 60_000);
    expect(out).toEqual([]);
  });

  it('goes to the routed receivers except the failing one, or to every other one when the route named only it', () => {
    const def = findDefinition(NOTIFICATIONS_FAILING)!;
    const labels = { alertname: NOTIFICATIONS_FAILING, receiver: 'pager' };
    expect(deliveryTargets(def.delivery, labels, receivers.slice(2), receivers).map((r) => r.name)).toEqual(['slack']);
    expect(deliveryTargets(def.delivery, labels, [receivers[3]!], receivers).map((r) => r.name)).toEqual([
      'am',
      'am-dr',
      'slack',
    ]);
  });

  it('other alerts keep exactly their routed receivers', () => {
    const def = findDefinition('LedgerNodeDown')!;
    expect(
      deliveryTargets(def.delivery, { receiver: 'pager' }, receivers.slice(1, 3), receivers).map((r) => r.name),
    ).toEqual(['am-dr', 'slack']);
  });
});
