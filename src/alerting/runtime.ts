// The built-in alerting at run time: evaluates the engine every evaluationInterval over the
// fleet snapshot, feeds the dispatcher, hands due notifications to the send stage, and
// keeps the durable state. Time and I/O come in through AlertingDeps: every time it keeps is a
// monotonic reading (clock/clock.ts), turned into wall time only where people read it.
import { SYSTEM_CLOCK, type Clock } from '../clock/clock.js';
import type { AlertDefinition } from './rules/types.js';
import type { Logger } from '../logger.js';
import type { Secrets } from '../redact.js';
import type { FleetSnapshot } from '../state/snapshot.js';
import { findDefinition } from './rules/definitions/index.js';
import { deliveryTargets } from './notify/deliveryFilter.js';
import { NotificationDispatcher } from './notify/dispatcher.js';
import type { SilenceCheck } from './notify/mute.js';
import { AlertEngine } from './rules/engine.js';
import type { AlertInstance } from './rules/instance.js';
import { NotificationCounts } from './metrics.js';
import type { Notification } from './notify/notification.js';
import type { DeliveryReport, SendFn } from './notify/queue.js';
import { ReceiverSet } from './notify/receiverSet.js';
import { handOut } from './notify/sendStage.js';
import type { ReceiverSettings, ReceiverSpec } from './receivers/kind.js';
import { receiverKind } from './receivers/registry.js';
import type { AlertingSettings } from './settings.js';
import { announceChanges, listAlerts, type AlertChange, type ListedAlert } from './notify/listing.js';
import { AlertMemoryStore } from './notify/memoryStore.js';
import { AlertStateStore } from './notify/stateStore.js';
import type { ExporterSignals, Labels } from './rules/types.js';

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
  /** Durations on its monotonic side, labels for people on its wall side; default the system's. */
  clock?: Clock;
}

export type { AlertChange, ListedAlert };

/** How long a shutdown waits for sends in flight (the CLI's shutdown watchdog allows 20 s in all). */
export const SHUTDOWN_SEND_GRACE_MS = 5_000;

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
  private lastSavedKey = '';
  private stopped = false;
  private lastStates: ReadonlyMap<string, string> = new Map();
  private readonly clock: Clock;
  private readonly now: () => number;
  readonly store: AlertStateStore;
  private readonly memory: AlertMemoryStore;

  constructor(
    private settings: AlertingSettings,
    private readonly deps: AlertingDeps,
  ) {
    const clock = (this.clock = deps.clock ?? SYSTEM_CLOCK);
    this.now = () => clock.mono();
    this.counts = deps.counts ?? new NotificationCounts();
    this.engine = new AlertEngine(this.engineOptions());
    this.dispatcher = new NotificationDispatcher(this.dispatcherOptions());
    const current = () => ({ instances: this.engine.list(), dispatcher: this.dispatcher.exportState() });
    const onWriteFailure = () => void this.counts.stateWriteFailures++;
    const files = { stateDir: () => this.settings.stateDir, clock, logger: deps.logger, secrets: deps.secrets };
    this.store = new AlertStateStore({ ...files, current, onWriteFailure });
    this.memory = new AlertMemoryStore({ ...files, memory: this.engine.durable });
  }

  /** Restores saved state, reads receiver secrets, starts evaluating. */
  async start(): Promise<void> {
    const [loaded] = await Promise.all([this.store.load(), this.memory.load()]);
    if (loaded.state) {
      this.engine.restore(loaded.state.instances, loaded.downMs);
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
    const counts = new Map(
      [...this.counts.byReceiver].map(([r, c]) => [r, { success: c.success, failure: c.failure }]),
    );
    this.engine.evaluate(
      { snapshot: this.deps.snapshot(), exporter: { ...this.deps.signals(), notifications: counts } },
      now,
    );
    void this.memory.saveIfDue(now);
    this.dispatcher.update(this.engine.list(), now);
    this.announce();
    this.pump();
    void this.receivers?.refresh();
    this.deps.onEvaluated?.(now);
  }

  private announce(): void {
    this.lastStates = announceChanges(this.engine.list(), this.lastStates, this.deps.onAlertChange);
  }

  /** Pending and firing alerts, for /api/alerts and the status page. */
  list(): ListedAlert[] {
    return listAlerts(this.engine.active(), this.dispatcher, this.clock);
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
    return this.receivers?.lengths() ?? new Map<string, number>();
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
    if (left.flat().length > 0)
      this.deps.logger.warn(
        { component: 'alerting', count: left.flat().length },
        'notifications not delivered at shutdown: sent after the restart',
      );
    this.store.stop();
    await Promise.all([this.save(true), this.memory.save()]);
  }

  /**
   * Hands due notifications to their queues once the state that records them was written (or
   * the write was tried: a full disk must not stop paging), so a crash after a send cannot
   * forget the alert it was about and lose its resolve.
   */
  private pump(): void {
    const now = this.now();
    const due = this.dispatcher.tick(now);
    const saved = this.save(false);
    if (due.length > 0) void saved.then(() => this.handOut(due, now));
    clearTimeout(this.pumpTimer);
    const next = this.dispatcher.nextDueAt(now);
    if (next !== undefined && !this.stopped) {
      this.pumpTimer = setTimeout(
        () => this.pump(),
        Math.max(0, Math.min(next - now, this.settings.evaluationIntervalMs)),
      );
      this.pumpTimer.unref();
    }
  }

  private handOut(due: readonly Notification[], now: number): void {
    // Stopped meanwhile: they stay unconfirmed in the state file and go out after the restart.
    if (this.stopped) return;
    handOut(due, now, {
      receivers: this.receivers,
      clock: this.clock,
      externalUrl: this.settings.externalUrl ?? this.deps.defaultExternalUrl,
      rebuildGapMs: this.settings.evaluationIntervalMs,
      report: (r) => this.report(r),
    });
  }

  private report(r: DeliveryReport): void {
    this.counts.note(r);
    const n = r.notification;
    const line = {
      component: 'alerting',
      receiver: r.receiver,
      group: n.groupKey,
      count: n.alerts.length,
      status: n.status,
      attempts: r.attempts,
      httpStatus: r.status,
    };
    if (r.result === 'success') {
      this.dispatcher.noteDelivered(n);
      this.deps.logger.info(line, 'notification sent');
    } else {
      this.deps.logger.warn(
        { ...line, result: r.result },
        `notification ${r.result === 'dropped' ? 'dropped (queue full)' : 'failed'}` +
          (r.message ? `: ${this.deps.secrets.scrub(r.message)}` : ''),
      );
      this.dispatcher.noteFailed(n);
    }
    void this.save(false);
  }

  private buildReceivers(): Promise<ReceiverSet> {
    return ReceiverSet.build(this.settings.receivers, {
      logger: this.deps.logger,
      secrets: this.deps.secrets,
      sendFor: this.deps.sendFor,
      now: this.now,
      onReport: (r) => this.report(r),
    });
  }

  private schedule(): void {
    clearInterval(this.evalTimer);
    if (this.stopped) return;
    this.evalTimer = setInterval(() => this.evaluate(), this.settings.evaluationIntervalMs);
    this.evalTimer.unref();
    this.evaluate();
  }

  /** Writes the state when it changed (or always, at shutdown); one write at a time, retried until it succeeds. */
  private save(force: boolean): Promise<void> {
    const instances = this.engine.list();
    // While an alert is pending, written at least once a minute: its file's savedAt tells a
    // restart how long nobody watched (the engine's outage tolerance for pending alerts).
    const watching = instances.some((i) => i.state === 'pending') ? Math.floor(this.now() / 60_000) : -1;
    const key = JSON.stringify([
      instances.map((i) => [i.id, i.state, i.keepFiringSince]),
      this.dispatcher.exportState(),
      watching,
    ]);
    if (!force && key === this.lastSavedKey) return Promise.resolve();
    this.lastSavedKey = key;
    return this.store.save();
  }

  private engineOptions() {
    return {
      runbookBase: this.settings.runbookBase,
      instance: this.deps.instance,
      rules: this.settings.rules,
      definitions: this.deps.definitions,
    };
  }

  private dispatcherOptions() {
    const all = this.settings.receivers.map((r) => ({ name: r.name, kind: r.kind }));
    return {
      routing: this.settings.routing,
      pushReceivers: new Set(this.settings.receivers.filter((r) => receiverKind(r.kind).push).map((r) => r.name)),
      isSilenced: this.deps.isSilenced,
      deliver: (labels: Labels, routed: readonly string[]) =>
        deliveryTargets(
          findDefinition(labels.alertname ?? '')?.delivery,
          labels,
          all.filter((r) => routed.includes(r.name)),
          all,
        ).map((r) => r.name),
    };
  }
}

export type { Notification };
