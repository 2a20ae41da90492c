// Alerts about the alerting pipeline itself (rule group ledger-fleet-exporter-alerting):
// the Watchdog proves the path to Alertmanager works (like kube-prometheus' Watchdog), and
// NotificationsFailing tells on-call through the other receivers that one keeps failing.
import { durationWords } from '../format.js';
import { counterIncrease } from '../range.js';
import type { AlertDefinition, AlertSample } from '../types.js';

const GROUP = 'ledger-fleet-exporter-alerting';
const FAILING_WINDOW_MS = 900_000;

export const WATCHDOG = 'LedgerExporterWatchdog';
export const NOTIFICATIONS_FAILING = 'LedgerExporterNotificationsFailing';

export const PIPELINE_ALERTS: AlertDefinition[] = [
  {
    name: WATCHDOG,
    group: GROUP,
    scope: 'exporter',
    comment:
      "Always firing while the exporter runs: its absence at Alertmanager (or a dead man's switch\n" +
      'fed by it) means the alerting pipeline is broken. Route it to nobody who gets paged.',
    defaults: { severity: 'info', forMs: 60_000, keepFiringForMs: 0 },
    promql: () => 'count(ledger_exporter_build_info) > 0',
    summary: () => 'Alerting pipeline of ledger-fleet-exporter is alive',
    description: () =>
      'Always firing while {{ $value }} ledger-fleet-exporter instance(s) run; it proves alerts reach ' +
      'Alertmanager. Page when it stops arriving, not when it fires.',
    delivery: { onlyKinds: ['alertmanager'] },
    evaluate: () => [{ labels: {}, value: 1 }],
  },
  {
    name: NOTIFICATIONS_FAILING,
    group: GROUP,
    comment: 'Failures and not one success in 15 minutes: retries are exhausted, not a single blip.',
    scope: 'exporter',
    defaults: { severity: 'warning', forMs: 300_000, keepFiringForMs: 600_000, threshold: 0 },
    promql: (p) =>
      `sum without(result) (increase(ledger_alert_notifications_total{result="failure"}[15m])) > ${p.threshold}\n` +
      'unless sum without(result) (increase(ledger_alert_notifications_total{result="success"}[15m])) > 0',
    summary: () => 'Receiver {{ $labels.receiver }} keeps failing to deliver notifications',
    description: (p) =>
      `Receiver {{ $labels.receiver }} failed {{ printf "%.0f" $value }} notifications in the last 15 minutes ` +
      `without one success, for more than ${durationWords(p.forMs)}; alerts routed only to it are not reaching ` +
      `anyone.`,
    delivery: { exceptLabelledReceiver: true },
    evaluate: (ctx) => {
      const out: AlertSample[] = [];
      for (const [receiver, n] of ctx.exporter.notifications ?? []) {
        const failed = counterIncrease(ctx.range(`notify-failure\u0000${receiver}`, n.failure, FAILING_WINDOW_MS));
        const succeeded = counterIncrease(ctx.range(`notify-success\u0000${receiver}`, n.success, FAILING_WINDOW_MS));
        if (failed > (ctx.params.threshold ?? 0) && succeeded === 0) out.push({ labels: { receiver }, value: failed });
      }
      return out;
    },
  },
];
