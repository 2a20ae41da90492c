// The components a running exporter adds to the daemon's own (the CLI's run and demo, and the
// benchmark, so it measures what operators run): the status pages, the built-in alerting, its
// heartbeat and, when sharded, the shard metrics. Each lives in its own folder's component.ts.
// The fan-out and the watch are loaded only once a config has a `watch:` section (lazy.ts).
import { alertingComponent } from '../alerting/component.js';
import { heartbeatComponent } from '../alerting/heartbeat/component.js';
import { peersComponent } from '../alerting/peers/component.js';
import { telegramCommandsComponent } from '../alerting/telegram/component.js';
import type { ExporterConfig } from '../config/exporterConfig.js';
import type { EntityReadView } from '../domain.js';
import type { Logger } from '../logger.js';
import { BUILT_IN_FAN_OUT } from '../probes/index.js';
import { fanOutProbes } from '../probes/registry.js';
import { alertsForShard, type ShardAssignment } from '../shard/index.js';
import { shardComponent } from '../shard/component.js';
import { statusComponent } from '../status/component.js';
import { VERSION } from '../version.js';
import { isWatchKindRead } from '../watch/kinds/registered.js';
import type { DaemonComponent } from './component.js';
import { lazyComponent } from './lazy.js';

/** The status page lists the active alerts and their changes; the heartbeat follows evaluation. */
export function standardComponents(log: Logger, sharding?: ShardAssignment): DaemonComponent[] {
  const heartbeat = heartbeatComponent((c) => c.alerting);
  const shardAlerts = async () =>
    sharding?.sharded() ? alertsForShard(await everyAlert(), sharding.spec()) : undefined;
  const alerting = alertingComponent({
    onAlertChange: (e) => status.board.noteAlert(e),
    onEvaluated: (t) => heartbeat.evaluated(t),
    definitions: async () => (await shardAlerts())?.engine,
  });
  const status = statusComponent({
    logger: log,
    version: VERSION,
    activeAlerts: () => alerting.statusAlerts(),
    notices: () => alerting.problems(),
  });
  // Status first: probe results reach every component as soon as polling starts, and the alerting start reads files.
  const shard = sharding
    ? [shardComponent(sharding, { leftToPrometheus: async () => (await shardAlerts())?.leftToPrometheus ?? [] })]
    : [];
  // Fan-out reads first, then the watch built from them, so their part of each snapshot is there for the others.
  // Telegram commands and silence replication act on the alerting's silences: after it, so they start once it has.
  const telegram = telegramCommandsComponent({
    silences: () => alerting.silences(),
    alerts: () => alerting.actingAlerts(),
  });
  const peers = peersComponent({ silences: () => alerting.silences() });
  return [...watchComponents(), status, alerting, heartbeat, telegram, peers, ...shard];
}

/** Every alert's definition, every watch kind's included: asked only with alerting configured on a shard. */
const everyAlert = async () => (await import('../alerting/rules/definitions/index.js')).alertDefinitions();

/** No reads: what /metrics shows of the fan-out probes (their families, no samples) while nothing reads. */
const NO_READS: ReadonlyMap<string, readonly EntityReadView[]> = new Map();

/**
 * A watch kind's reads (built-in or registered at run time) read the `watch:` section's entries, so
 * they need one; a fan-out probe registered on its own, outside any kind, reads its own entities.
 */
const needsFanOut = (config: ExporterConfig) =>
  config.watch !== undefined ||
  fanOutProbes().some(([name]) => !Object.hasOwn(BUILT_IN_FAN_OUT, name) && !isWatchKindRead(name));
/** The fan-out reader and the watch built from its reads, loaded when a config first needs them. */
function watchComponents(): DaemonComponent[] {
  const fanOut = lazyComponent({
    name: 'fan-out',
    needed: needsFanOut,
    load: async () => (await import('../probe/fanOutComponent.js')).fanOutComponent(),
    idle: { addToSnapshot: (snap) => void (snap.fanOut = NO_READS) },
  });
  const watch = lazyComponent({
    name: 'watch',
    needed: (config) => config.watch !== undefined,
    load: async () => (await import('../watch/component.js')).watchComponent(),
  });
  return [fanOut, watch];
}
