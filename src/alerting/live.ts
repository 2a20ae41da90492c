// The built-in alerting while the config has an `alerting:` section: the engine and notifier
// (runtime.ts), the maintenance schedule, the silence keeper (silences and acknowledgements), the
// mute stage's sources and what the Alertmanager API reads, built from the section. Loaded by
// component.ts with the first such config, so a daemon without one holds none of this code.
import type { DaemonContext } from '../daemon/component.js';
import { toWall } from '../clock/clock.js';
import type { NotificationCounts } from './metrics.js';
import { MaintenanceSchedule } from './maintenance/schedule.js';
import { AlertingRuntime, type AlertingDeps } from './runtime.js';
import { warnUnusableReceivers } from './receivers/dryCheck.js';
import { kindSend } from './receivers/materialize.js';
import type { AlertingApiLive } from './api/routes.js';
import { muting, mutedBy, type MuteSources } from './notify/mute.js';
import { DEFAULT_ACK_MAX_MS, SilenceKeeper } from './silences/keeper.js';

/** What runs while the config has an `alerting:` section; empty while it has none. */
export interface Live {
  runtime?: AlertingRuntime;
  schedule?: MaintenanceSchedule;
  silences?: SilenceKeeper;
  api?: AlertingApiLive;
}

/** The alerting component's options the runtime takes. */
export interface LiveOptions {
  sendFor?: AlertingDeps['sendFor'];
  onAlertChange?: AlertingDeps['onAlertChange'];
  onEvaluated?: AlertingDeps['onEvaluated'];
  definitions?: () => AlertingDeps['definitions'] | Promise<AlertingDeps['definitions']>;
  clock?: AlertingDeps['clock'];
}

/** Starts alerting for the config's section, if it has one; what runs is in `live` from the start. */
export async function build(
  live: Live,
  c: DaemonContext,
  opts: LiveOptions,
  counts: NotificationCounts,
): Promise<void> {
  const settings = c.config().alerting;
  if (!settings) return;
  const log = c.logger.child({ component: 'alerting' });
  const clock = opts.clock ?? c.clock;
  live.schedule = new MaintenanceSchedule({ log, onChange: () => live.runtime?.evaluate(), now: () => clock.wall() });
  live.schedule.apply(settings.maintenance);
  const silences = (live.silences = new SilenceKeeper({
    stateDir: () => c.config().alerting?.stateDir ?? settings.stateDir,
    wallNow: () => clock.wall(),
    ackMaxMs: () => c.config().alerting?.ackMaxMs ?? DEFAULT_ACK_MAX_MS,
    alertLabels: (fp) => live.runtime?.active().find((i) => i.id === fp)?.labels,
    logger: c.logger,
    secrets: c.secrets,
  }));
  await silences.start();
  const definitions = await opts.definitions?.();
  // The mute stage's sources; windows are cron schedules and silences hold wall times.
  const mute: MuteSources = {
    window: (labels, wall) => live.schedule?.isSilenced(labels, wall),
    silences: (labels, wall) => silences.store.silencedBy(labels, wall),
  };
  const url = new URL(c.url);
  live.runtime = new AlertingRuntime(settings, {
    logger: c.logger,
    secrets: c.secrets,
    snapshot: c.snapshot,
    signals: c.signals,
    ready: () => c.state.ready(),
    sendFor: opts.sendFor ?? ((r) => kindSend(r, c)),
    defaultExternalUrl: `${url.protocol}//${url.host}`,
    instance: url.host,
    isSilenced: (labels, now) => mutedBy(muting(mute, labels, toWall(clock, now))),
    counts,
    onAlertChange: opts.onAlertChange,
    onEvaluated: (now) => {
      // An acknowledgement ends when its alert is no longer pending or firing.
      silences.endAcks(new Set(live.runtime?.active().map((i) => i.id)));
      opts.onEvaluated?.(now);
    },
    definitions,
    clock: opts.clock ?? c.clock,
  });
  await live.runtime.start();
  const runtime = live.runtime;
  live.api = {
    keeper: silences,
    active: () => runtime.active(),
    routing: () => c.config().alerting?.routing ?? settings.routing,
    evaluationIntervalMs: () => c.config().alerting?.evaluationIntervalMs ?? settings.evaluationIntervalMs,
    mute,
    clock,
    externalUrl: settings.externalUrl ?? `${url.protocol}//${url.host}`,
  };
  // Sends nothing; a receiver that cannot work is named now rather than at the first outage. It
  // checks what the runtime built, so each secret is read, and an unreadable one logged, once.
  void warnUnusableReceivers(live.runtime.builtReceivers(), { send: (req) => c.client.send(req), log });
  log.info(
    { receivers: settings.receivers.map((r) => r.name), evaluationIntervalMs: settings.evaluationIntervalMs },
    'built-in alerting on',
  );
}
