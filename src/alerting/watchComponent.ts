// Joins maintenance windows and the heartbeat to the daemon: windows applied at start and on every
// reload, polling progress taken from probe results, evaluation progress reported by the alert
// engine through `evaluated`, and their metrics. The alerting runtime asks `isSilenced`.
import type { DaemonComponent, DaemonContext } from '../components.js';
import type { ExporterConfig } from '../domain.js';
import type { Logger } from '../logger.js';
import { Heartbeat, heartbeatCollectors } from './heartbeat.js';
import { heartbeatSecrets, type HeartbeatSettings } from './heartbeatConfig.js';
import { PipelineHealth, stallBound } from './heartbeatHealth.js';
import type { MaintenanceWindowSpec, WindowOccurrence } from './maintenance.js';
import { MaintenanceSchedule, maintenanceCollectors } from './maintenanceSchedule.js';
import type { Labels } from './types.js';

/** The parts of the resolved `alerting:` section this component uses. */
export interface WatchSettings {
  evaluationIntervalMs: number;
  maintenance: readonly MaintenanceWindowSpec[];
  heartbeat?: HeartbeatSettings;
}

export interface WatchComponent extends DaemonComponent {
  /** The dispatcher's hook: which active window silences these labels. */
  isSilenced(labels: Labels, now: number): string | undefined;
  /** The engine finished an evaluation (heartbeat liveness). */
  evaluated(now: number): void;
  /** A window started or ended: the runtime may evaluate and dispatch at once. */
  onWindowChange(listener: (active: readonly WindowOccurrence[]) => void): void;
}

export function watchComponent(settingsOf: (c: ExporterConfig) => WatchSettings | undefined, now: () => number = Date.now): WatchComponent {
  let ctx: DaemonContext | undefined;
  let heartbeat: Heartbeat | undefined;
  let health: PipelineHealth | undefined;
  const listeners: Array<(active: readonly WindowOccurrence[]) => void> = [];
  let schedule: MaintenanceSchedule | undefined;

  let heartbeatKey = '';

  const applyHeartbeat = (config: ExporterConfig, log: Logger) => {
    const s = settingsOf(config);
    const pollMs = Math.max(0, ...config.nodes.map((n) => n.intervalMs));
    const pollTimeoutMs = Math.max(0, ...config.nodes.map((n) => n.timeoutMs));
    // A reload that changes none of these keeps the running heartbeat (and its progress marks).
    const key = JSON.stringify([s?.heartbeat, s?.evaluationIntervalMs, pollMs, pollTimeoutMs]);
    if (key === heartbeatKey) return;
    heartbeatKey = key;
    heartbeat?.stop();
    heartbeat = undefined;
    health = undefined;
    if (!s?.heartbeat || !ctx) return;
    ctx.secrets.addAll(heartbeatSecrets(s.heartbeat));
    const client = ctx.client;
    health = new PipelineHealth(
      [
        { name: 'polling', stallAfterMs: stallBound(pollMs, pollTimeoutMs) },
        { name: 'evaluation', stallAfterMs: stallBound(s.evaluationIntervalMs) },
      ],
      now(),
      s.heartbeat.intervalMs,
    );
    heartbeat = new Heartbeat({ ...s.heartbeat, send: (req) => client.send(req), health, log, now });
    heartbeat.start();
  };

  return {
    name: 'maintenance-and-heartbeat',
    collectors: (registry) => {
      maintenanceCollectors(registry, () => schedule);
      heartbeatCollectors(registry, () => heartbeat);
    },
    onProbeResult: () => health?.progress('polling', now()),
    start(c) {
      ctx = c;
      const log = c.logger.child({ component: 'maintenance' });
      schedule = new MaintenanceSchedule({ log, now, onChange: (active) => listeners.forEach((l) => l(active)) });
      schedule.apply(settingsOf(c.config())?.maintenance ?? []);
      applyHeartbeat(c.config(), c.logger.child({ component: 'heartbeat' }));
    },
    onReload() {
      if (!ctx) return;
      schedule?.apply(settingsOf(ctx.config())?.maintenance ?? []);
      applyHeartbeat(ctx.config(), ctx.logger.child({ component: 'heartbeat' }));
    },
    stop() {
      heartbeat?.stop();
      heartbeatKey = '';
      schedule?.stop();
    },
    isSilenced: (labels, t) => schedule?.isSilenced(labels, t),
    evaluated: (t) => health?.progress('evaluation', t),
    onWindowChange: (l) => void listeners.push(l),
  };
}
