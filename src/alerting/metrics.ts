// The alerting metrics of the contract: ledger_alerts, ledger_alert_notifications_total,
// ledger_alert_notification_queue, ledger_alert_notification_duration_seconds and
// ledger_alert_state_write_failures_total.
import { Counter, Gauge, Histogram, type Registry } from '../deps/promClient.js';
import type { AlertInstance } from './rules/instance.js';
import type { DeliveryReport } from './notify/queue.js';

export interface AlertingStats {
  instances(): readonly AlertInstance[];
  queueLengths(): ReadonlyMap<string, number>;
  /** Whether the mute stage (maintenance windows, silences) mutes these labels now. */
  isMuted?(labels: AlertInstance['labels']): boolean;
}

/** Counts kept outside prom-client so they survive registry rebuilds and feed NotificationsFailing. */
export class NotificationCounts {
  readonly byReceiver = new Map<string, { success: number; failure: number; dropped: number }>();
  /** Writes of the alert state file that failed (each is retried until one succeeds). */
  stateWriteFailures = 0;
  /** One per registry (a histogram cannot be rebuilt from counts). */
  readonly observers: Array<(receiver: string, seconds: number) => void> = [];

  note(r: DeliveryReport): void {
    const c = this.byReceiver.get(r.receiver) ?? { success: 0, failure: 0, dropped: 0 };
    c[r.result]++;
    this.byReceiver.set(r.receiver, c);
    if (r.result !== 'dropped') for (const o of this.observers) o(r.receiver, r.durationMs / 1000);
  }
}

export function alertingCollectors(
  registry: Registry,
  stats: () => AlertingStats | undefined,
  counts: NotificationCounts,
): void {
  const registers = [registry];
  new Gauge({
    name: 'ledger_alerts',
    help:
      'Alerts of the built-in engine by name, severity and state (pending | firing | suppressed: ' +
      'firing, muted by a silence or maintenance window).',
    labelNames: ['alertname', 'severity', 'state'],
    registers,
    collect() {
      this.reset();
      const s = stats();
      for (const i of s?.instances() ?? []) {
        if (i.state === 'resolved') continue;
        const state = i.state === 'firing' && s?.isMuted?.(i.labels) ? 'suppressed' : i.state;
        this.inc({ alertname: i.alertname, severity: i.labels.severity ?? '', state });
      }
    },
  });
  new Counter({
    name: 'ledger_alert_notifications_total',
    help: 'Notifications by receiver and result (success | failure | dropped).',
    labelNames: ['receiver', 'result'],
    registers,
    collect() {
      this.reset();
      for (const [receiver, c] of counts.byReceiver)
        for (const result of ['success', 'failure', 'dropped'] as const) this.inc({ receiver, result }, c[result]);
    },
  });
  new Gauge({
    name: 'ledger_alert_notification_queue',
    help: 'Notifications waiting or in flight, per receiver.',
    labelNames: ['receiver'],
    registers,
    collect() {
      this.reset();
      for (const [receiver, n] of stats()?.queueLengths() ?? []) this.set({ receiver }, n);
    },
  });
  new Counter({
    name: 'ledger_alert_state_write_failures_total',
    help: 'Writes of the durable alert state that failed; each is retried with backoff until one succeeds.',
    registers,
    collect() {
      this.reset();
      this.inc(counts.stateWriteFailures);
    },
  });
  const histogram = new Histogram({
    name: 'ledger_alert_notification_duration_seconds',
    help: 'Time from the first attempt to the outcome of a notification, retries included.',
    labelNames: ['receiver'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers,
  });
  counts.observers.push((receiver, seconds) => histogram.observe({ receiver }, seconds));
}
