// A private Debian Prometheus on loopback for e2e tests: scrapes the given targets as one job and
// evaluates the given rule files, every second, so a test sees a change within seconds.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { freePort, startProcess, type ManagedProcess } from './processes.js';

export interface PrometheusSetup {
  /** Scrape targets (host:port), one job. */
  targets: string[];
  job?: string;
  ruleFiles?: string[];
  /** Alertmanagers (host:port) the firing alerts go to. */
  alertmanagers?: string[];
}

export async function startPrometheus(
  binary: string,
  dir: string,
  setup: PrometheusSetup,
): Promise<{ url: string; process: ManagedProcess }> {
  const port = await freePort();
  const config = path.join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    stringify({
      global: { scrape_interval: '1s', scrape_timeout: '900ms', evaluation_interval: '1s' },
      rule_files: setup.ruleFiles ?? [],
      ...(setup.alertmanagers
        ? { alerting: { alertmanagers: [{ static_configs: [{ targets: setup.alertmanagers }] }] } }
        : {}),
      scrape_configs: [
        { job_name: setup.job ?? 'ledger-fleet-exporter', static_configs: [{ targets: setup.targets }] },
      ],
    }),
  );
  const process = startProcess('prometheus', binary, [
    `--config.file=${config}`,
    `--storage.tsdb.path=${path.join(dir, 'prom-data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--log.level=warn',
  ]);
  return { url: `http://127.0.0.1:${port}`, process };
}
