// Which alerts the built-in engine of a shard evaluates. It sees only its own nodes, so a node-
// scoped alert is right for them, but a network-scoped one (or one measured against the network)
// would judge the network by a part of it: those are left to the Prometheus rules, which read the recorded fleet-wide
// series.
import type { AlertDefinition } from '../alerting/rules/types.js';
import type { ShardSpec } from './assign.js';

export interface ShardAlerts {
  /** Definitions the engine evaluates. */
  engine: readonly AlertDefinition[];
  /** Names of the alerts the engine could evaluate but leaves to Prometheus in this shard. */
  leftToPrometheus: string[];
}

// Node-scoped, but measured against the whole network (the lag behind its highest node).
const FLEET_RELATIVE = new Set(['LedgerNodeBehindFleet']);

export function alertsForShard(definitions: readonly AlertDefinition[], spec: ShardSpec): ShardAlerts {
  if (spec.totalShards === 1) return { engine: definitions, leftToPrometheus: [] };
  const left = definitions.filter((d) => d.evaluate && (d.scope === 'network' || FLEET_RELATIVE.has(d.name)));
  return { engine: definitions.filter((d) => !left.includes(d)), leftToPrometheus: left.map((d) => d.name) };
}
