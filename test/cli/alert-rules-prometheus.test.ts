// `alert-rules` writes a self-sufficient rules file: loaded ALONE into a real Prometheus (Debian's),
// an alert that reads a recording-rule series (LedgerFleetVersionSkew reads
// network:ledger_fleet_versions:count) fires against an exporter polling simulated nodes.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadConfigFile } from '../../src/config/index.js';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import { createLogger } from '../../src/logger.js';
import { SimFleet } from '../../src/sim/index.js';
import { requireBuiltCli, runCli } from '../support/cliProcess.js';
import { getJson, waitFor, type ManagedProcess } from '../support/processes.js';
import { startPrometheus } from '../support/prometheus.js';
import { checkTools, requireTool } from '../support/prometheus-tools.js';

const tools = checkTools(['prometheus']);

interface PromAlert {
  labels: Record<string, string>;
  state: string;
}

describe.skipIf(tools.skip)(`alert-rules output loaded alone into Prometheus${tools.skipNote}`, () => {
  let dir: string;
  let fleet: SimFleet | undefined;
  let daemon: Daemon | undefined;
  let prometheus: ManagedProcess | undefined;
  let promUrl: string;
  let rulesFile: string;

  beforeAll(async () => {
    requireBuiltCli();
    dir = mkdtempSync(join(tmpdir(), 'lfe-cli-rules-'));
    // Two builds in one network: two versions, so the version skew alert has its condition.
    fleet = await SimFleet.start(
      [
        { name: 'new-1', network: 'mainnet', build: 'current' },
        { name: 'old-1', network: 'mainnet', build: 'earliest' },
      ],
      { host: '127.0.0.1' },
    );
    const config = {
      listen: '127.0.0.1:0',
      defaults: { interval: '1s', timeout: '800ms' },
      nodes: fleet.nodes.map((n) => ({ name: n.name, url: n.url, network: n.network })),
      evidence: { dir: join(dir, 'evidence') },
      alerting: { stateDir: join(dir, 'alerting'), rules: { LedgerFleetVersionSkew: { for: '0s' } } },
    };
    const configFile = join(dir, 'fleet.yaml');
    writeFileSync(configFile, stringify(config));
    const rules = await runCli(['alert-rules', configFile]);
    expect(rules.stderr).toBe('');
    expect(rules.code).toBe(0);
    rulesFile = join(dir, 'deployment.rules.yml');
    writeFileSync(rulesFile, rules.stdout);
    daemon = await startDaemon(await loadConfigFile(configFile), {
      logger: createLogger({ level: 'silent' }),
      defaultMetrics: false,
    });
    const running = await startPrometheus(requireTool(tools, 'prometheus'), dir, {
      targets: [new URL(daemon.url).host],
      ruleFiles: [rulesFile],
    });
    prometheus = running.process;
    promUrl = running.url;
  }, 60_000);

  afterAll(async () => {
    await prometheus?.stop();
    await daemon?.close();
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('records the fleet series its alerts read and fires the alert built on them', async () => {
    const firing = await waitFor(
      'LedgerFleetVersionSkew firing in Prometheus',
      async () => {
        const body = await getJson<{ data: { alerts: PromAlert[] } }>(`${promUrl}/api/v1/alerts`);
        return body.data.alerts.find((a) => a.labels.alertname === 'LedgerFleetVersionSkew' && a.state === 'firing');
      },
      { timeoutMs: 45_000, intervalMs: 500, context: () => prometheus?.output() ?? '' },
    );
    expect(firing.labels).toMatchObject({ network: 'mainnet', severity: 'info' });
    const recorded = await getJson<{ data: { result: Array<{ value: [number, string] }> } }>(
      `${promUrl}/api/v1/query?query=${encodeURIComponent('network:ledger_fleet_versions:count{network="mainnet"}')}`,
    );
    expect(recorded.data.result.map((r) => r.value[1])).toEqual(['2']);
  }, 60_000);
});
