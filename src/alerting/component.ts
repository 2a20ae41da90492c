// Joins the built-in alerting to the daemon: /api/alerts, the alerting metrics, maintenance
// windows, start/stop and reloads. Off (and quiet) while the config has no `alerting:` section:
// the engine, the notifier and the maintenance schedule are loaded (live.ts) with the first one.
import type { DaemonComponent, DaemonContext } from '../daemon/component.js';
import { SYSTEM_CLOCK, toWall } from '../clock/clock.js';
import type { ConfigDiff } from '../config/diff.js';
import { alertingCollectors, NotificationCounts } from './metrics.js';
import { maintenanceCollectors } from './maintenance/metrics.js';
import type { AlertingDeps } from './runtime.js';
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
}

export interface AlertingComponentOptions {
  /** Replaces the HTTP client as the receivers' transport (tests). */
  sendFor?: AlertingDeps['sendFor'];
  onAlertChange?: AlertingDeps['onAlertChange'];
  onEvaluated?: AlertingDeps['onEvaluated'];
  /** The alerts to evaluate, asked at each (re)build; undefined: all. */
  definitions?: () => AlertingDeps['definitions'];
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

  return {
    name: 'alerting',
    routes: [
      (req) => {
        if (req.pathname !== '/api/alerts') return undefined;
        return {
          status: 200,
          contentType: 'application/json; charset=utf-8',
          body: `${JSON.stringify({ enabled: live.runtime !== undefined, alerts: live.runtime?.list() ?? [] })}\n`,
        };
      },
    ],
    collectors: (registry) => {
      alertingCollectors(registry, () => live.runtime, counts);
      maintenanceCollectors(registry, () => live.schedule);
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
    problems: () => live.runtime?.store.problemLines() ?? [],
  };
}

async function teardown(live: Live): Promise<void> {
  await live.runtime?.stop();
  live.schedule?.stop();
  live.runtime = undefined;
  live.schedule = undefined;
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
