// The components a running exporter adds to the daemon's own (the CLI's run and demo, and the
// benchmark, so it measures what operators run): the status pages, the built-in alerting, its
// heartbeat and, when sharded, the shard metrics. Each lives in its own folder's component.ts.
import { alertingComponent } from '../alerting/component.js';
import { alertDefinitions } from '../alerting/rules/definitions/index.js';
import { heartbeatComponent } from '../alerting/heartbeat/component.js';
import { peersComponent } from '../alerting/peers/component.js';
import { telegramCommandsComponent } from '../alerting/telegram/component.js';
import type { Logger } from '../logger.js';
import { fanOutComponent } from '../probe/fanOutComponent.js';
import { alertsForShard, type ShardAssignment } from '../shard/index.js';
import { shardComponent } from '../shard/component.js';
import { statusComponent } from '../status/component.js';
import { VERSION } from '../version.js';
import { watchComponent } from '../watch/component.js';
import type { DaemonComponent } from './component.js';

/** The status page lists the active alerts and their changes; the heartbeat follows evaluation. */
export function standardComponents(log: Logger, sharding?: ShardAssignment): DaemonComponent[] {
  const heartbeat = heartbeatComponent((c) => c.alerting);
  const shardAlerts = () => (sharding?.sharded() ? alertsForShard(alertDefinitions(), sharding.spec()) : undefined);
  const alerting = alertingComponent({
    onAlertChange: (e) => status.board.noteAlert(e),
    onEvaluated: (t) => heartbeat.evaluated(t),
    definitions: () => shardAlerts()?.engine,
  });
  const status = statusComponent({
    logger: log,
    version: VERSION,
    activeAlerts: () => alerting.statusAlerts(),
    notices: () => alerting.problems(),
  });
  // Status first: probe results reach every component as soon as polling starts, and the alerting start reads files.
  const shard = sharding
    ? [shardComponent(sharding, { leftToPrometheus: () => shardAlerts()?.leftToPrometheus ?? [] })]
    : [];
  // Fan-out reads first, then the watch built from them, so their part of each snapshot is there for the others.
  // Telegram commands and silence replication act on the alerting's silences: after it, so they start once it has.
  const telegram = telegramCommandsComponent({
    silences: () => alerting.silences(),
    alerts: () => alerting.actingAlerts(),
  });
  const peers = peersComponent({ silences: () => alerting.silences() });
  return [fanOutComponent(), watchComponent(), status, alerting, heartbeat, telegram, peers, ...shard];
}
