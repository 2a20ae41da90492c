// The built-in probes, one line each, in /metrics order: node probes, then fan-out probes. A probe added at run time
// (an extension, a test) is registered the same way: registerProbe(name, module).
import { blockNumberProbe, type BlockNumberProbeData } from './blockNumber.js';
import { healthProbe, type HealthProbeData } from './health.js';
import { metricsProbe, type MetricsProbeData } from './metrics.js';
import { miningStatsProbe, type MiningStatsProbeData } from './miningStats.js';
import type { ProbeName } from '../domain.js';
import type { FanOutProbe, NodeProbe } from './types.js';
import { validatorsProbe, type ValidatorsProbeData } from './validators.js';

export const BUILT_IN_PROBES: Readonly<Record<ProbeName, NodeProbe>> = {
  health: healthProbe,
  metrics: metricsProbe,
  blockNumber: blockNumberProbe,
  miningStats: miningStatsProbe,
  validators: validatorsProbe,
};

/**
 * The built-in fan-out probes that no watch kind owns (none yet): each watch kind's reads are
 * registered with the kind (src/watch/kinds/registry.ts).
 */
export const BUILT_IN_FAN_OUT: Readonly<Record<string, FanOutProbe>> = {};

/** What any built-in probe answers (tests and benchmarks build results of it). */
export type BuiltInProbeData =
  HealthProbeData | MetricsProbeData | BlockNumberProbeData | MiningStatsProbeData | ValidatorsProbeData;
