// The exporter's own families about itself (build info, config reloads, poll overruns, clock
// steps), registered in each format's registry of the metrics view and read at scrape time.
import { Counter, Gauge, type Registry } from '../deps/promClient.js';
import { PROBE_NAMES, type ProbeName } from '../domain.js';
import { BUILD_INFO } from '../version.js';

/** Counters the daemon keeps about itself. */
export interface ExporterCounters {
  configReloads: { success: number; failure: number };
  pollOverruns: Map<ProbeName, number>;
  /** Steps of the wall clock noticed (clock/steps.ts). */
  clockSteps?: number;
}

/** The exporter's own families: build info, config reloads, poll overruns, clock steps. */
export function exporterCollectors(
  registry: Registry,
  version: string,
  input: () => { counters: ExporterCounters },
): void {
  const registers = [registry];
  const help = 'Exporter build: version, source revision and Node.js version. Always 1.';
  new Gauge({
    name: 'ledger_exporter_build_info',
    help,
    labelNames: ['version', 'revision', 'nodejs_version'],
    registers,
  }).set({ ...BUILD_INFO, version }, 1);
  new Counter({
    name: 'ledger_exporter_config_reloads_total',
    help: 'Configuration reloads by result (success, failure).',
    labelNames: ['result'],
    registers,
    collect() {
      this.reset();
      const c = input().counters.configReloads;
      this.inc({ result: 'success' }, c.success);
      this.inc({ result: 'failure' }, c.failure);
    },
  });
  new Counter({
    name: 'ledger_exporter_poll_overruns_total',
    help:
      'Probe runs skipped because the previous poll of the same node was still queued behind the concurrency bound ' +
      '(a poll waiting on a slow or hung node is not counted).',
    labelNames: ['probe'],
    registers,
    collect() {
      this.reset();
      // From 0 for every probe, so the first overrun is an increase() that alerts can see.
      for (const probe of PROBE_NAMES) this.inc({ probe }, input().counters.pollOverruns.get(probe) ?? 0);
    },
  });
  new Counter({
    name: 'ledger_exporter_clock_steps_total',
    help:
      'Steps of the wall clock noticed (more than 1 s against the monotonic clock). Durations are measured on the ' +
      'monotonic clock; a step changes only time labels.',
    registers,
    collect() {
      this.reset();
      this.inc(input().counters.clockSteps ?? 0);
    },
  });
}
