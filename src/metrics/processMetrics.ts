// process_* and nodejs_* metrics, collected once per process. prom-client's collectDefaultMetrics
// starts a GC observer and an event-loop delay monitor on every call and never stops them, so
// calling it per metrics view (per config reload, per daemon in a test run) leaks; these two
// registries (one per format: prom-client renames counters in place when rendering OpenMetrics)
// are built on first use and shared by every view in the process.
import { readdirSync, statSync } from 'node:fs';
import { collectDefaultMetrics, Registry, type Gauge } from '../deps/promClient.js';

export type ExpositionFormat = 'text' | 'openmetrics';

const registries = new Map<ExpositionFormat, Registry>();

/**
 * How often the event-loop delay monitor behind nodejs_eventloop_lag_* samples. prom-client's 10 ms
 * wakes the process 100 times a second for that alone (per registry): ~3 ms of CPU a second, a
 * tenth of the exporter's at 1,000 nodes / 15 s. Each sample still measures its delay exactly, and
 * a block of the loop longer than this is always seen; shorter ones are seen in proportion.
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

/** The statistics prom-client reads from Node's delay monitor, which records whole periods between samples. */
const DELAY_STATS = ['min', 'max', 'mean', 'p50', 'p90', 'p99'] as const;

export function processMetricsRegistry(format: ExpositionFormat): Registry {
  let registry = registries.get(format);
  if (!registry) {
    const contentType = format === 'openmetrics' ? Registry.OPENMETRICS_CONTENT_TYPE : Registry.PROMETHEUS_CONTENT_TYPE;
    // prom-client's typings omit the constructor's content-type argument.
    registry = new (Registry as unknown as new (contentType: string) => Registry)(contentType);
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    countOpenFdsCheaply(registry);
    showDelayBeyondSampling(registry);
    registries.set(format, registry);
  }
  return registry;
}

/**
 * The same figure as prom-client's process_open_fds (Linux only), without listing /proc/self/fd:
 * with one socket per node that is 10,000 entries, ~25 ms per scrape. Linux 6.2+ gives the count
 * as the directory's size; an older kernel says 0 there, and then the list is read.
 */
function countOpenFdsCheaply(registry: Registry): void {
  const gauge = registry.getSingleMetric('process_open_fds') as (Gauge & { collect?: () => void }) | undefined;
  if (!gauge) return;
  gauge.collect = function (this: Gauge) {
    try {
      this.set(openFdCount());
    } catch {
      // No /proc: the gauge keeps its last value, as prom-client's does.
    }
  };
}

/**
 * Node's monitor records each whole period between its samples (the sampling interval plus the
 * delay), so at rest prom-client reports the interval itself as lag: 0.1 s at our sampling rate.
 * The gauges show the delay alone. They are set by the collect of nodejs_eventloop_lag_seconds,
 * which runs before any of them is read (prom-client's own order).
 */
function showDelayBeyondSampling(registry: Registry): void {
  const periodSeconds = EVENT_LOOP_SAMPLE_MS / 1000;
  for (const stat of DELAY_STATS) {
    const gauge = registry.getSingleMetric(`nodejs_eventloop_lag_${stat}_seconds`) as Gauge | undefined;
    if (!gauge) continue;
    const read = gauge.get.bind(gauge);
    gauge.get = async () => {
      const metric = await read();
      return { ...metric, values: metric.values.map((v) => ({ ...v, value: Math.max(0, v.value - periodSeconds) })) };
    };
  }
}

/** Descriptors open in this process; throws without /proc. */
export function openFdCount(
  fs: { statSync: (p: string) => { size: number }; readdirSync: (p: string) => unknown[] } = { statSync, readdirSync },
): number {
  const size = fs.statSync('/proc/self/fd').size;
  // Listing opens one descriptor of its own, closed again before the count is read.
  return size > 0 ? size : fs.readdirSync('/proc/self/fd').length - 1;
}
