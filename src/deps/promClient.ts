// The parts of prom-client the exporter uses, each required from its own file. prom-client's index
// also loads its cluster aggregator (node:cluster), summaries (two tree libraries) and the
// Pushgateway client (http, https): 1 MB more heap in every daemon, none of it used.
// prom-client has no exports map, so its files are reachable; an upgrade that moves one fails at
// start-up and in every metrics test, never silently.
import { createRequire } from 'node:module';
import type * as prom from 'prom-client';

const require = createRequire(import.meta.url);

export const Registry = require('prom-client/lib/registry.js') as typeof prom.Registry;
export type Registry = prom.Registry;
export const Counter = require('prom-client/lib/counter.js') as typeof prom.Counter;
export type Counter<T extends string = string> = prom.Counter<T>;
export const Gauge = require('prom-client/lib/gauge.js') as typeof prom.Gauge;
export type Gauge<T extends string = string> = prom.Gauge<T>;
export const Histogram = require('prom-client/lib/histogram.js') as typeof prom.Histogram;
export type Histogram<T extends string = string> = prom.Histogram<T>;
export type { Metric } from 'prom-client';

type DefaultMetricsConfig = prom.DefaultMetricsCollectorConfiguration<prom.RegistryContentType>;
type DefaultMetric = (
  registry: prom.Registry<prom.RegistryContentType> | undefined,
  config: DefaultMetricsConfig,
) => void;

/**
 * prom-client's default metrics after process_cpu_*, in the order of its collectDefaultMetrics
 * (lib/defaultMetrics.js; processResources only where Node has getActiveResourcesInfo).
 */
const LATER_DEFAULT_METRICS: readonly DefaultMetric[] = [
  'processStartTime',
  'osMemoryHeap',
  'processOpenFileDescriptors',
  'processMaxFileDescriptors',
  'eventLoopLag',
  ...(typeof process.getActiveResourcesInfo === 'function' ? ['processResources'] : []),
  'processHandles',
  'processRequests',
  'heapSizeAndUsed',
  'heapSpacesSizeAndUsed',
  'version',
  'gc',
].map((name) => require(`prom-client/lib/metrics/${name}.js`) as DefaultMetric);

/**
 * process_cpu_user_seconds_total, process_cpu_system_seconds_total and process_cpu_seconds_total as
 * prom-client's lib/metrics/processCpuTotal.js counts them, without its exemplars: that module
 * requires @opentelemetry/api (51 files, 0.4 MB of heap in every daemon) to label exemplars with
 * the active trace, which the exporter never enables.
 */
const processCpuTotal: DefaultMetric = (registry, config) => {
  const registers = registry ? [registry] : undefined;
  const prefix = config.prefix || '';
  const labels = (config.labels || {}) as Record<string, string>;
  const labelNames = Object.keys(labels);
  let last = process.cpuUsage();
  const user: prom.Counter = new Counter({
    name: `${prefix}process_cpu_user_seconds_total`,
    help: 'Total user CPU time spent in seconds.',
    registers,
    labelNames,
    // This one metric's collect sets all three.
    collect() {
      const now = process.cpuUsage();
      const userMicros = now.user - last.user;
      const systemMicros = now.system - last.system;
      last = now;
      user.inc(labels, userMicros / 1e6);
      system.inc(labels, systemMicros / 1e6);
      total.inc(labels, (userMicros + systemMicros) / 1e6);
    },
  });
  const system = new Counter({
    name: `${prefix}process_cpu_system_seconds_total`,
    help: 'Total system CPU time spent in seconds.',
    registers,
    labelNames,
  });
  const total = new Counter({
    name: `${prefix}process_cpu_seconds_total`,
    help: 'Total user and system CPU time spent in seconds.',
    registers,
    labelNames,
  });
};

/** prom-client's collectDefaultMetrics: the same metrics, names, help and order (processCpuTotal above). */
export function collectDefaultMetrics(config?: DefaultMetricsConfig): void {
  // prom-client's own check and default.
  if (config !== null && config !== undefined && typeof config !== 'object')
    throw new TypeError('config must be null, undefined, or an object');
  const c: DefaultMetricsConfig = { eventLoopMonitoringPrecision: 10, ...config };
  processCpuTotal(c.register, c);
  for (const metric of LATER_DEFAULT_METRICS) metric(c.register, c);
}
