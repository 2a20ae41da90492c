// Joins the built-in alerting to the daemon: /api/alerts, the Alertmanager API v2 (silences,
// acknowledgements), the alerting metrics, maintenance windows and silences (muting through one
// stage), start/stop and reloads. Off (and quiet) while the config has no `alerting:` section:
// the engine, the notifier, the maintenance schedule and the silence keeper are loaded (live.ts)
// with the first one.
import type { DaemonComponent, DaemonContext } from '../daemon/component.js';
import { SYSTEM_CLOCK, toWall } from '../clock/clock.js';
import type { ConfigDiff } from '../config/diff.js';
import { alertingCollectors, NotificationCounts } from './metrics.js';
import { maintenanceCollectors } from './maintenance/metrics.js';
import type { AlertingDeps, AlertingRuntime } from './runtime.js';
import { get } from '../web/route.js';
import { REVISION, VERSION } from '../version.js';
import { alertingApiRoutes, type AlertingApiLive } from './api/routes.js';
import { muting } from './notify/mute.js';
import { silenceCollectors } from './silences/metrics.js';
import type { SilenceService } from './silences/types.js';
import type { ActiveAlert } from './telegram/actions.js';
import type { Live } from './live.js';

export interface AlertingComponent extends DaemonComponent {
  /** Pending and firing alerts, in the status page's shape; undefined while alerting is off. */
  statusAlerts():
    | Array<{
        name: string;
        severity: string;
        state: 'pending' | 'firing';
        labels: Record<string, string>;
        summary?: string;
        since?: number;
      }>
    | undefined;
  /** Runs one evaluation now (tests, and maintenance windows starting or ending). */
  evaluateNow(): void;
  problems(): string[];
  /** The running silence store (Telegram commands, peer replication); undefined while alerting is off. */
  silences(): SilenceService | undefined;
  /** Pending and firing alerts with their fingerprints (Telegram commands); undefined while alerting is off. */
  actingAlerts(): ActiveAlert[] | undefined;
}

export interface AlertingComponentOptions {
  /** Replaces the HTTP client as the receivers' transport (tests). */
  sendFor?: AlertingDeps['sendFor'];
  onAlertChange?: AlertingDeps['onAlertChange'];
  onEvaluated?: AlertingDeps['onEvaluated'];
  /** The alerts to evaluate, asked at each (re)build; undefined: all. */
  definitions?: () => AlertingDeps['definitions'] | Promise<AlertingDeps['definitions']>;
  /** Replaces the daemon's clock pair (tests). */
  clock?: AlertingDeps['clock'];
}

export function alertingComponent(opts: AlertingComponentOptions = {}): AlertingComponent {
  const live: Live = {};
  let ctx: DaemonContext | undefined;
  const counts = new NotificationCounts();
  // Reloads apply one after another: one that takes alerting away waits for sends in flight, and
  // one that gives it back meanwhile must build after that shutdown, not reconfigure what it stops.
  let reloads: Promise<void> = Promise.resolve();
  const startedAt = Date.now();
  const wallNow = () => (opts.clock ?? ctx?.clock ?? SYSTEM_CLOCK).wall();

  return {
    name: 'alerting',
    routes: [
      get('/api/alerts', () => ({
        status: 200,
        contentType: 'application/json; charset=utf-8',
        body: `${JSON.stringify({ enabled: live.runtime !== undefined, alerts: live.runtime?.list() ?? [] })}\n`,
      })),
      ...alertingApiRoutes(() => live.api, { version: VERSION, revision: REVISION, startedAt }),
    ],
    collectors: (registry) => {
      alertingCollectors(registry, () => live.runtime && live.api && stats(live.runtime, live.api), counts);
      maintenanceCollectors(registry, () => live.schedule);
      silenceCollectors(registry, () => live.silences, wallNow);
    },
    async start(c) {
      ctx = c;
      await buildLive(live, c, opts, counts);
    },
    onReload(diff: ConfigDiff) {
      if (!ctx || !diff.sections.includes('alerting')) return;
      const next = diff.next.alerting;
      const c = ctx;
      reloads = reloads
        .then(async () => {
          if (live.runtime && next) {
            live.schedule?.apply(next.maintenance);
            await live.runtime.reconfigure(next);
          } else {
            await teardown(live);
            if (next) await buildLive(live, c, opts, counts);
          }
        })
        .catch((err: Error) =>
          c.logger.error({ component: 'alerting' }, `alerting reload failed: ${c.secrets.scrub(err.message)}`),
        );
    },
    async stop() {
      await reloads; // a reload that builds alerting must not do so after the stop
      await teardown(live);
    },
    // Read at each status refresh: from the instances, with no walk of the notification log.
    statusAlerts: () =>
      live.runtime?.active().map((i) => ({
        name: i.alertname,
        severity: i.labels.severity ?? '',
        state: i.state as 'pending' | 'firing',
        labels: { ...i.labels },
        summary: i.annotations.summary,
        since: toWall(opts.clock ?? ctx?.clock ?? SYSTEM_CLOCK, i.firingSince ?? i.activeAt),
      })),
    evaluateNow: () => live.runtime?.evaluate(),
    silences: () => live.silences?.store,
    actingAlerts: () =>
      live.runtime?.active().map((i) => ({
        fingerprint: i.id,
        name: i.alertname,
        state: i.state as 'pending' | 'firing',
        labels: i.labels,
        ...(i.annotations.summary !== undefined ? { summary: i.annotations.summary } : {}),
      })),
    problems: () => [...(live.runtime?.store.problemLines() ?? []), ...(live.silences?.problems() ?? [])],
  };
}

/** What the metrics read: the instances, the queues, and whether the mute stage mutes an alert now. */
function stats(runtime: AlertingRuntime, api: AlertingApiLive) {
  return {
    instances: () => runtime.instances(),
    queueLengths: () => runtime.queueLengths(),
    isMuted: (labels: Record<string, string>) => muting(api.mute, labels, api.clock.wall()) !== undefined,
  };
}

async function teardown(live: Live): Promise<void> {
  live.api = undefined;
  await live.runtime?.stop();
  live.schedule?.stop();
  await live.silences?.stop();
  live.runtime = undefined;
  live.schedule = undefined;
  live.silences = undefined;
}

/** Starts alerting for the config's section, if it has one (its modules are loaded then). */
async function buildLive(
  live: Live,
  c: DaemonContext,
  opts: AlertingComponentOptions,
  counts: NotificationCounts,
): Promise<void> {
  if (!c.config().alerting) return;
  const { build } = await import('./live.js');
  await build(live, c, opts, counts);
}
