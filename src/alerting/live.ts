// The built-in alerting while the config has an `alerting:` section: the engine and notifier
// (runtime.ts) and the maintenance schedule, built from the section. Loaded by component.ts with
// the first such config, so a daemon without one holds none of this code.
import type { DaemonContext } from '../daemon/component.js';
import { toWall } from '../clock/clock.js';
import type { NotificationCounts } from './metrics.js';
import { MaintenanceSchedule } from './maintenance/schedule.js';
import { AlertingRuntime, type AlertingDeps } from './runtime.js';
import { warnUnusableReceivers } from './receivers/dryCheck.js';
import { kindSend } from './receivers/materialize.js';

/** What runs while the config has an `alerting:` section; empty while it has none. */
export interface Live {
  runtime?: AlertingRuntime;
  schedule?: MaintenanceSchedule;
}

/** The alerting component's options the runtime takes. */
export interface LiveOptions {
  sendFor?: AlertingDeps['sendFor'];
  onAlertChange?: AlertingDeps['onAlertChange'];
  onEvaluated?: AlertingDeps['onEvaluated'];
  definitions?: () => AlertingDeps['definitions'];
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
    // Windows are cron schedules: asked on the wall clock.
    isSilenced: (labels, now) => live.schedule?.isSilenced(labels, toWall(clock, now)),
    counts,
    onAlertChange: opts.onAlertChange,
    onEvaluated: opts.onEvaluated,
    definitions: opts.definitions?.(),
    clock: opts.clock ?? c.clock,
  });
  await live.runtime.start();
  // Sends nothing; a receiver that cannot work is named now rather than at the first outage. It
  // checks what the runtime built, so each secret is read, and an unreadable one logged, once.
  void warnUnusableReceivers(live.runtime.builtReceivers(), { send: (req) => c.client.send(req), log });
  log.info(
    { receivers: settings.receivers.map((r) => r.name), evaluationIntervalMs: settings.evaluationIntervalMs },
    'built-in alerting on',
  );
}
