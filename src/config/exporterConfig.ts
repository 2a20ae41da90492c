// The resolved config as a whole: one field per section, each typed by the module that owns the
// section's feature. It sits above those features (they are composed here, never augmented in);
// a stage below them takes only the fields it reads.
import type { AlertingSettings } from '../alerting/settings.js';
import type {
  AgentPlatformSettings,
  EvidenceSettings,
  ListenAddress,
  NetworkSettings,
  NodeTarget,
  PollingSettings,
} from '../domain.js';
import type { ShardSpec } from '../shard/assign.js';
import type { WatchSettings } from '../watch/types.js';

export interface ExporterConfig {
  listen: ListenAddress;
  polling: PollingSettings;
  nodes: NodeTarget[];
  /** Per-network settings; networks not listed get the defaults. */
  networks: Record<string, NetworkSettings>;
  evidence: EvidenceSettings;
  agentPlatform?: AgentPlatformSettings;
  /** The operator's own validators, miners and accounts (config/sections/watch.ts); absent: no `watch:` section. */
  watch?: WatchSettings;
  /** Built-in alerting (config/sections/alerting.ts); absent: off. */
  alerting?: AlertingSettings;
  /** This replica's shard from the config file; absent: one shard (flags may still set it). */
  sharding?: ShardSpec;
}
