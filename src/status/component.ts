// The on-call view as a daemon component: it sees each probe result and reload, serves the
// status pages and API, and keeps its history file. The alert engine reports through noteAlert.
import { SYSTEM_CLOCK, type Clock } from '../clock/clock.js';
import type { DaemonComponent, DaemonContext } from '../daemon/component.js';
import type { Logger } from '../logger.js';
import type { StatusBoard } from './board.js';
import { STATUS_PATHS } from './paths.js';
import { get, type EndpointRequest } from '../web/route.js';
import { StatusService, statusFileFor } from './service.js';
import type { AlertView } from './types.js';

export interface StatusComponentOptions {
  logger: Logger;
  version: string;
  /** The history file; default beside the evidence directory; false: memory only. */
  file?: string | false;
  /** Node pages list the node's evidence records (off when the daemon runs without evidence). Default on. */
  evidence?: boolean;
  /** Alerts of the built-in engine, shown at the top of the page; absent when it does not run. */
  activeAlerts?: () => AlertView[] | undefined;
  /** Problems of the exporter itself, shown under the page's heading. */
  notices?: () => string[];
  /** The clock pair (tests); default the daemon's. */
  clock?: Clock;
}

export interface StatusComponent extends DaemonComponent {
  /** Node statuses, history and events (noteAlert for the alert engine). */
  readonly board: StatusBoard;
}

export function statusComponent(opts: StatusComponentOptions): StatusComponent {
  let ctx: DaemonContext | undefined;
  const running = () => {
    if (!ctx) throw new Error('status component used before the daemon started it');
    return ctx;
  };
  const service = new StatusService({
    logger: opts.logger,
    fleet: () => running().state,
    minIntervalMs: () =>
      Math.min(
        10_000,
        ...running()
          .config()
          .nodes.map((n) => n.intervalMs),
      ),
    activeAlerts: opts.activeAlerts,
    watch: () => ctx?.snapshot().watch,
    notices: opts.notices,
    clockPair: () => opts.clock ?? ctx?.clock ?? SYSTEM_CLOCK,
  });
  const answer = async (req: EndpointRequest) => {
    if (!ctx) return undefined;
    service.freshen();
    // The pages' code (HTML, scripts, charts) is loaded at the first request, not by every daemon.
    const { statusRoute } = await import('./routes.js');
    // The running store, not config().evidence.dir: a reload may name another directory,
    // which the store only moves to at the next restart.
    const store = opts.evidence === false ? undefined : ctx.evidence;
    return statusRoute(
      {
        source: service.source(),
        version: opts.version,
        ready: () => running().state.ready(),
        evidence: store && ((node, limit) => store.read({ node, limit })),
      },
      req.pathname,
      req.params,
    );
  };
  return {
    name: 'status',
    board: service.board,
    // One handler for every status path: it reads the path again (statusRoute), as before the router.
    routes: STATUS_PATHS.map((path) => get(path, answer)),
    onProbeResult: (target, result) => service.noteResult(target.name, result),
    onReload(diff) {
      const n = diff.nodes;
      service.board.noteConfigReload(
        true,
        `configuration reloaded: ${n.added.length} added, ${n.removed.length} removed, ${n.changed.length} changed`,
      );
      if (ctx) service.refresh();
    },
    onReloadRejected(problems) {
      service.board.noteConfigReload(
        false,
        `configuration reload rejected (${problems.length} problem${problems.length === 1 ? '' : 's'}); the ` +
          `running configuration stays`,
      );
    },
    async start(c) {
      ctx = c;
      const file =
        opts.file === false
          ? undefined
          : (opts.file ?? (opts.evidence === false ? undefined : statusFileFor(c.config().evidence.dir)));
      await service.open(file);
      service.refresh();
    },
    stop: () => service.close(),
  };
}
