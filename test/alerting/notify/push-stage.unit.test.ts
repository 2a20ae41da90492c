// The push stage for `alertmanager` receivers with injected time: every routed alert pushed as
// Prometheus pushes (again each minute; resolved ones for 15 minutes), muted ones not at all.
import { describe, expect, it } from 'vitest';
import { PushStage, type PushRules } from '../../../src/alerting/notify/pushStage.js';
import type { AlertInstance } from '../../../src/alerting/rules/instance.js';
import { firing, M, resolved, S, T0 } from './stageAlerts.js';

function rules(over: Partial<PushRules> = {}): PushRules {
  return { receivers: ['am'], routedTo: () => true, muted: () => false, ...over };
}

/** Ticks every 15 s over [from, to], returning when each alert was pushed and as what. */
function run(stage: PushStage, alerts: AlertInstance[], r: PushRules, from: number, to: number): string[] {
  const out: string[] = [];
  for (let t = from; t <= to; t += 15 * S)
    for (const n of stage.due(alerts, r, t))
      for (const a of n.alerts) out.push(`${(t - T0) / S}:${a.labels.node}:${a.status}`);
  return out;
}

describe('push stage', () => {
  it('pushes a firing alert at once and every resendDelay; a resolved one until resolvedResend ends', () => {
    const stage = new PushStage();
    const a = firing('a');
    expect(run(stage, [a], rules(), T0, T0 + 2 * M)).toEqual(['0:a:firing', '60:a:firing', '120:a:firing']);
    const gone = resolved(a, T0 + 3 * M);
    const pushes = run(stage, [gone], rules({ resolvedResendMs: 3 * M }), T0 + 3 * M, T0 + 10 * M);
    expect(pushes).toEqual(['180:a:resolved', '240:a:resolved', '300:a:resolved']);
    expect(stage.nextDueAt([gone], rules({ resolvedResendMs: 3 * M }), T0 + 10 * M)).toBeUndefined();
  });

  it('pushes nothing of an alert not routed to the receiver, or muted; nextDueAt skips it too', () => {
    const stage = new PushStage();
    const a = firing('a');
    const b = firing('b');
    const r = rules({ routedTo: (l) => l.node !== 'b', muted: (i) => i.labels.node === 'a' });
    expect(run(stage, [a, b], r, T0, T0 + 5 * M)).toEqual([]);
    expect(stage.nextDueAt([a, b], r, T0)).toBeUndefined();
  });

  it('a failed push goes again at the next tick; alerts gone are forgotten', () => {
    const stage = new PushStage();
    const a = firing('a');
    const [n] = stage.due([a], rules(), T0);
    expect(stage.lastPushedAt(a.id)).toBe(T0);
    expect(stage.nextDueAt([a], rules(), T0 + S)).toBe(T0 + M);
    stage.failed(n!);
    expect(stage.nextDueAt([a], rules(), T0 + S)).toBe(T0 + S);
    stage.due([], rules(), T0 + 2 * S);
    expect(stage.export()).toEqual({});
  });

  it('its saved records restore: no second push inside the resend delay after a restart', () => {
    const stage = new PushStage();
    const a = firing('a');
    stage.due([a], rules(), T0);
    expect(stage.export()).toEqual({ [`am\u0000${a.id}`]: { at: T0, status: 'firing' } });
    const again = new PushStage();
    again.restore(structuredClone(stage.export()));
    expect(again.due([a], rules(), T0 + 30 * S)).toEqual([]);
    expect(again.due([a], rules(), T0 + M).map((n) => [n.receiver, n.groupKey, n.status])).toEqual([
      ['am', 'push', 'firing'],
    ]);
  });
});
