// process_* and nodejs_* metrics, collected once per process. prom-client's collectDefaultMetrics
// starts a GC observer and an event-loop delay monitor on every call and never stops them, so
// calling it per metrics view (per config reload, per daemon in a test run) leaks; these two
// registries (one per format: prom-client renames counters in place when rendering OpenMetrics)
// are built on first use and shared by every view in the process.
import { collectDefaultMetrics, Registry } from 'prom-client';

export type ExpositionFormat = 'text' | 'openmetrics';

const registries = new Map<ExpositionFormat, Registry>();

export function processMetricsRegistry(format: ExpositionFormat): Registry {
  let registry = registries.get(format);
  if (!registry) {
    const contentType = format === 'openmetrics' ? Registry.OPENMETRICS_CONTENT_TYPE : Registry.PROMETHEUS_CONTENT_TYPE;
    // prom-client's typings omit the constructor's content-type argument.
    registry = new (Registry as unknown as new (contentType: string) => Registry)(contentType);
    collectDefaultMetrics({ register: registry });
    registries.set(format, registry);
  }
  return registry;
}
