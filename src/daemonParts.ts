// The components every running exporter has (the CLI's run and demo, and the benchmark, so it
// measures what operators run): the status pages, the built-in alerting and its heartbeat.
import { alertingComponent } from './alerting/component.js';
import { ALERT_DEFINITIONS } from './alerting/definitions/index.js';
import { heartbeatComponent } from './alerting/heartbeatComponent.js';
import type { DaemonComponent } from './components.js';
import type { Logger } from './logger.js';
import { alertsForShard, type ShardAssignment } from './shard/index.js';
import { statusComponent } from './status/component.js';
import { VERSION } from './version.js';

/** The status page lists the active alerts and their changes; the heartbeat follows evaluation. */
export function standardComponents(log: Logger, sharding?: ShardAssignment): DaemonComponent[] {
  const heartbeat = heartbeatComponent((c) => c.alerting);
  const alerting = alertingComponent({
    onAlertChange: (e) => status.board.noteAlert(e),
    onEvaluated: (t) => heartbeat.evaluated(t),
    definitions: () => (sharding?.sharded() ? alertsForShard(ALERT_DEFINITIONS, sharding.spec()).engine : undefined),
  });
  const status = statusComponent({ logger: log, version: VERSION, activeAlerts: () => alerting.statusAlerts() });
  // Status first: probe results reach every component as soon as polling starts, and the alerting start reads files.
  return [status, alerting, heartbeat];
}
