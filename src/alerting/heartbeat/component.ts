// Joins the heartbeat (dead-man's switch) to the daemon: polling progress from probe results,
// evaluation progress reported by the alerting runtime through `evaluated`, its metric, and a
// restart only when a reload changes its settings or the bounds derived from the intervals.
import type { DaemonComponent, DaemonContext } from '../../daemon/component.js';
import { SYSTEM_CLOCK, type Clock } from '../../clock/clock.js';
import type { ExporterConfig } from '../../config/exporterConfig.js';
import { Heartbeat, heartbeatCollectors } from './heartbeat.js';
import { heartbeatSecrets, type HeartbeatSettings } from './config.js';
import { PipelineHealth, stallBound } from './health.js';

/** The parts of the resolved `alerting:` section the heartbeat uses. */
export interface HeartbeatInputs {
  evaluationIntervalMs: number;
  heartbeat?: HeartbeatSettings;
}

export interface HeartbeatComponent extends DaemonComponent {
  /** The alert engine finished an evaluation. */
  evaluated(now: number): void;
}

/** `clock`: default the daemon's. */
export function heartbeatComponent(
  inputsOf: (c: ExporterConfig) => HeartbeatInputs | undefined,
  clock?: Clock,
): HeartbeatComponent {
  let ctx: DaemonContext | undefined;
  const clockOf = () => clock ?? ctx?.clock ?? SYSTEM_CLOCK;
  const now = () => clockOf().mono();
  let heartbeat: Heartbeat | undefined;
  let health: PipelineHealth | undefined;
  let key = '';

  const apply = (c: DaemonContext) => {
    const config = c.config();
    const s = inputsOf(config);
    const pollMs = Math.max(0, ...config.nodes.map((n) => n.intervalMs));
    const pollTimeoutMs = Math.max(0, ...config.nodes.map((n) => n.timeoutMs));
    // A reload that changes none of these keeps the running heartbeat (and its progress marks).
    const next = JSON.stringify([s?.heartbeat, s?.evaluationIntervalMs, pollMs, pollTimeoutMs]);
    if (next === key) return;
    key = next;
    heartbeat?.stop();
    heartbeat = undefined;
    health = undefined;
    if (!s?.heartbeat) return;
    c.secrets.addAll(heartbeatSecrets(s.heartbeat));
    health = new PipelineHealth(
      [
        { name: 'polling', stallAfterMs: stallBound(pollMs, pollTimeoutMs) },
        { name: 'evaluation', stallAfterMs: stallBound(s.evaluationIntervalMs) },
      ],
      now(),
      s.heartbeat.intervalMs,
    );
    const client = c.client;
    heartbeat = new Heartbeat({
      ...s.heartbeat,
      send: (req) => client.send(req),
      health,
      log: c.logger.child({ component: 'heartbeat' }),
      clock: clockOf(),
    });
    heartbeat.start();
  };

  return {
    name: 'heartbeat',
    collectors: (registry) => heartbeatCollectors(registry, () => heartbeat),
    onProbeResult: () => health?.progress('polling', now()),
    start(c) {
      ctx = c;
      apply(c);
    },
    onReload() {
      if (ctx) apply(ctx);
    },
    stop() {
      heartbeat?.stop();
      heartbeat = undefined;
      key = '';
    },
    evaluated: (t) => health?.progress('evaluation', t),
  };
}
