// The built-in alerting at run time: evaluates the engine every evaluationInterval over the
// fleet snapshot, feeds the dispatcher, hands due notifications to each receiver's queue, and
// keeps the durable state. Time and I/O come in through AlertingDeps.
import type { AlertDefinition } from './types.js';
import type { Logger } from '../logger.js';
import type { Secrets } from '../redact.js';
import type { FleetSnapshot } from '../state/snapshot.js';
import { findDefinition } from './definitions/index.js';
import { deliveryTargets } from './deliveryFilter.js';
import { NotificationDispatcher, type SilenceCheck } from './dispatcher.js';
import { AlertEngine } from './engine.js';
import type { AlertInstance } from './instance.js';
import { NotificationCounts } from './metrics.js';
import type { Notification } from './notification.js';
import type { DeliveryReport, SendFn } from './queue.js';
import { ReceiverSet } from './receiverSet.js';
import type { ReceiverSettings, ReceiverSpec } from './receivers/kind.js';
import { deliveryParts } from './receivers/materialize.js';
import { receiverKind } from './receivers/registry.js';
import type { AlertingSettings } from './settings.js';
import { loadAlertState, saveAlertState } from './stateFile.js';
import type { ExporterSignals, Labels } from './types.js';

export interface AlertingDeps {
  logger: Logger;
  secrets: Secrets;
  snapshot(): FleetSnapshot;
  signals(): ExporterSignals;
  /** False until the first poll round finished (nothing is known about the nodes before). */
  ready(): boolean;
  /** The receiver's send function (the project's HTTP client, or a fake in tests). */
  sendFor(receiver: ReceiverSettings): SendFn;
  /** Links in notifications when alerting.externalUrl is not set. */
  defaultExternalUrl: string;
  /** The `instance` label of the exporter's own alerts. */
  instance: string;
  isSilenced?: SilenceCheck;
  /** Told after each evaluation (the heartbeat's evaluation progress). */
  onEvaluated?: (now: number) => void;
  /** Told when an alert starts firing or resolves (the status page's events). */
  onAlertChange?: (e: AlertChange) => void;
  /** Notification counts, kept by the caller so they outlive a runtime rebuilt by a reload. */
  counts?: NotificationCounts;
  /** The alerts to evaluate; default all (a shard leaves the network-scoped ones to Prometheus). */
  definitions?: readonly AlertDefinition[];
  now?: () => number;
}

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

/** How long a shutdown waits for sends in flight (the CLI's shutdown watchdog allows 20 s in all). */
export const SHUTDOWN_SEND_GRACE_MS = 5_000;

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

export class AlertingRuntime {
  readonly counts: NotificationCounts;
  private engine: AlertEngine;
  private dispatcher: NotificationDispatcher;
  private receivers: ReceiverSet | undefined;
  /** Reloads one at a time: each takes the queues the one before it built. */
  private reconfiguring: Promise<void> = Promise.resolve();
  /** Queues replaced by a reload finishing their send in flight. */
  private draining: Promise<void> = Promise.resolve();
  private evalTimer: NodeJS.Timeout | undefined;
  private pumpTimer: NodeJS.Timeout | undefined;
  private saving: Promise<void> = Promise.resolve();
  private lastSavedKey = '';
  private stopped = false;
  private lastStates = new Map<string, string>();
  private readonly now: () => number;

  constructor(
    private settings: AlertingSettings,
    private readonly deps: AlertingDeps,
  ) {
    this.now = deps.now ?? Date.now;
    this.counts = deps.counts ?? new NotificationCounts();
    this.engine = new AlertEngine(this.engineOptions());
    this.dispatcher = new NotificationDispatcher(this.dispatcherOptions());
  }

  /** Restores saved state, reads receiver secrets, starts evaluating. */
  async start(): Promise<void> {
    const loaded = await loadAlertState(this.settings.stateDir);
    if (loaded.problem) this.deps.logger.error({ component: 'alerting' }, loaded.problem);
    if (loaded.state) {
      this.engine.restore(loaded.state.instances, Math.max(0, this.now() - (loaded.state.savedAt ?? 0)));
      this.dispatcher.importState(loaded.state.dispatcher);
      this.deps.logger.info({ component: 'alerting', active: loaded.state.instances.length }, 'alert state restored');
    }
    this.receivers = await this.buildReceivers();
    this.schedule();
  }

  /** A reload: new rules, routes and receivers; instances and the notification log stay. */
  reconfigure(settings: AlertingSettings): Promise<void> {
    const run = this.reconfiguring.then(() => this.applySettings(settings));
    this.reconfiguring = run.catch(() => undefined);
    return run;
  }

  private async applySettings(settings: AlertingSettings): Promise<void> {
    if (this.stopped) return;
    this.settings = settings;
    this.engine.configure(this.engineOptions());
    this.dispatcher.configure(this.dispatcherOptions());
    const old = this.receivers?.all() ?? [];
    this.receivers = await this.buildReceivers();
    this.schedule();
    // The old queues finish the send in flight as at shutdown (a delivered notification is not
    // sent again); what they still held goes out through the new ones.
    this.draining = Promise.all(old.map(({ queue }) => queue.drain(SHUTDOWN_SEND_GRACE_MS))).then((left) => {
      for (const n of left.flat()) this.dispatcher.noteFailed(n);
    });
    await this.draining;
    if (!this.stopped) this.pump();
  }

  /** One evaluation: engine, dispatcher, queues, state file. */
  evaluate(): void {
    if (this.stopped || !this.deps.ready()) return;
    const now = this.now();
    const counts = new Map([...this.counts.byReceiver].map(([r, c]) => [r, { success: c.success, failure: c.failure }]));
    this.engine.evaluate({ snapshot: this.deps.snapshot(), exporter: { ...this.deps.signals(), notifications: counts } }, now);
    this.dispatcher.update(this.engine.list(), now);
    this.announce();
    this.pump();
    void this.receivers?.refresh();
    this.deps.onEvaluated?.(now);
  }

  private announce(): void {
    const next = new Map<string, string>();
    for (const i of this.engine.list()) {
      next.set(i.id, i.state);
      const was = this.lastStates.get(i.id);
      if (i.state !== was && i.state !== 'pending' && (i.state === 'firing' || was === 'firing')) {
        this.deps.onAlertChange?.({ name: i.alertname, labels: i.labels, state: i.state, summary: i.annotations.summary });
      }
    }
    this.lastStates = next;
  }

  /** Pending and firing alerts, for /api/alerts and the status page. */
  list(): ListedAlert[] {
    const now = this.now();
    return this.engine.active().map((i) => {
      const notified = this.dispatcher.lastNotifiedAt(i);
      const silencedBy = this.dispatcher.silencedBy(i.labels, now);
      return {
        name: i.alertname,
        labels: i.labels,
        annotations: i.annotations,
        state: i.state as 'pending' | 'firing',
        value: i.value,
        activeAt: iso(i.activeAt)!,
        ...(i.firingSince !== undefined ? { firingSince: iso(i.firingSince) } : {}),
        ...(notified !== undefined ? { lastNotifiedAt: iso(notified) } : {}),
        ...(silencedBy ? { silencedBy } : {}),
      };
    });
  }

  /** Pending and firing instances, without the delivery facts list() looks up for each. */
  active(): readonly AlertInstance[] {
    return this.engine.active();
  }

  instances(): readonly AlertInstance[] {
    return this.engine.list();
  }

  /** The receivers built from the config, secrets read; one whose secret could not be read is left out. */
  builtReceivers(): ReceiverSpec[] {
    return this.receivers?.all().map((r) => r.spec) ?? [];
  }

  queueLengths(): Map<string, number> {
    return this.receivers?.lengths() ?? new Map();
  }

  /**
   * Shutdown: no new evaluations or sends; each receiver's send in flight gets up to graceMs to
   * finish, and the state file records what was delivered. What did not finish is forgotten as
   * sent, so it goes out again after the restart: at least once, never lost.
   */
  async stop(graceMs = SHUTDOWN_SEND_GRACE_MS): Promise<void> {
    this.stopped = true;
    clearInterval(this.evalTimer);
    clearTimeout(this.pumpTimer);
    await this.reconfiguring; // a reload under way finishes building its queues, then they drain here
    const left = await Promise.all((this.receivers?.all() ?? []).map(({ queue }) => queue.drain(graceMs)));
    for (const n of left.flat()) this.dispatcher.noteFailed(n);
    await this.draining; // queues a reload replaced, so the state file knows what they delivered
    if (left.flat().length > 0) this.deps.logger.warn({ component: 'alerting', count: left.flat().length }, 'notifications not delivered at shutdown: sent after the restart');
    await this.save(true);
  }

  private pump(): void {
    const now = this.now();
    for (const n of this.dispatcher.tick(now)) {
      const target = this.receivers?.get(n.receiver);
      if (!target) {
        // Its secret could not be read: counted as failed (so it stays due), and built again.
        this.report({ receiver: n.receiver, notification: n, result: 'failure', attempts: 0, durationMs: 0, message: `receiver not usable: ${this.receivers?.whyUnusable(n.receiver)}` });
        if (!this.stopped) this.receivers?.retry(n.receiver, this.settings.evaluationIntervalMs);
        continue;
      }
      target.queue.enqueue(n, deliveryParts(target.spec, n, { externalUrl: this.settings.externalUrl ?? this.deps.defaultExternalUrl, now }));
    }
    void this.save(false);
    clearTimeout(this.pumpTimer);
    const next = this.dispatcher.nextDueAt();
    if (next !== undefined && !this.stopped) {
      this.pumpTimer = setTimeout(() => this.pump(), Math.max(0, Math.min(next - now, this.settings.evaluationIntervalMs)));
      this.pumpTimer.unref();
    }
  }

  private report(r: DeliveryReport): void {
    this.counts.note(r);
    const n = r.notification;
    const line = { component: 'alerting', receiver: r.receiver, group: n.groupKey, count: n.alerts.length, status: n.status, attempts: r.attempts, httpStatus: r.status };
    if (r.result === 'success') {
      this.dispatcher.noteDelivered(n);
      this.deps.logger.info(line, 'notification sent');
    } else {
      this.deps.logger.warn({ ...line, result: r.result }, `notification ${r.result === 'dropped' ? 'dropped (queue full)' : 'failed'}${r.message ? `: ${this.deps.secrets.scrub(r.message)}` : ''}`);
      this.dispatcher.noteFailed(n);
    }
    void this.save(false);
  }

  private buildReceivers(): Promise<ReceiverSet> {
    return ReceiverSet.build(this.settings.receivers, { logger: this.deps.logger, secrets: this.deps.secrets, sendFor: this.deps.sendFor, now: this.now, onReport: (r) => this.report(r) });
  }

  private schedule(): void {
    clearInterval(this.evalTimer);
    if (this.stopped) return;
    this.evalTimer = setInterval(() => this.evaluate(), this.settings.evaluationIntervalMs);
    this.evalTimer.unref();
    this.evaluate();
  }

  /** Writes the state when it changed (or always, at shutdown); one write at a time. */
  private save(force: boolean): Promise<void> {
    const state = { instances: this.engine.list(), dispatcher: this.dispatcher.exportState() };
    // While an alert is pending, written at least once a minute: its file's savedAt tells a
    // restart how long nobody watched (the engine's outage tolerance for pending alerts).
    const watching = state.instances.some((i) => i.state === 'pending') ? Math.floor(this.now() / 60_000) : -1;
    const key = JSON.stringify([state.instances.map((i) => [i.id, i.state, i.keepFiringSince]), state.dispatcher, watching]);
    if (!force && key === this.lastSavedKey) return this.saving;
    this.lastSavedKey = key;
    this.saving = this.saving.then(() =>
      saveAlertState(this.settings.stateDir, state, this.now()).catch((err: Error) =>
        this.deps.logger.error({ component: 'alerting' }, `cannot write alert state: ${this.deps.secrets.scrub(err.message)}`),
      ),
    );
    return this.saving;
  }

  private engineOptions() {
    return { runbookBase: this.settings.runbookBase, instance: this.deps.instance, rules: this.settings.rules, definitions: this.deps.definitions };
  }

  private dispatcherOptions() {
    const all = this.settings.receivers.map((r) => ({ name: r.name, kind: r.kind }));
    return {
      routing: this.settings.routing,
      pushReceivers: new Set(this.settings.receivers.filter((r) => receiverKind(r.kind).push).map((r) => r.name)),
      isSilenced: this.deps.isSilenced,
      deliver: (labels: Labels, routed: readonly string[]) =>
        deliveryTargets(findDefinition(labels.alertname ?? '')?.delivery, labels, all.filter((r) => routed.includes(r.name)), all).map((r) => r.name),
    };
  }
}

export type { Notification };
