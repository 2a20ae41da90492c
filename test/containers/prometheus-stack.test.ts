// The example stack as deploy/docker-compose.yml wires it (Grafana aside: no registry here serves
// its image), on the local images: the exporter in demo mode, the real Prometheus binary loading
// deploy/prometheus.yml and every alerts/*.yml rule file through the compose file's own mounts and
// command, scraping the exporter across the container network, and the real Alertmanager loading
// deploy/alertmanager.yml, discovered by that Prometheus.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Wait, type StartedTestContainer } from 'testcontainers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { DEMO_SPECS } from '../../src/demo/fleet.js';
import { findExecutable } from '../support/prometheus-tools.js';
import { REQUIRE_DOCKER } from './engine.js';
import {
  assertDockerReady,
  baseUrl,
  dockerForSuite,
  IMAGES,
  labelledContainer,
  pollJson,
  startNetwork,
  startRemoved,
  Teardown,
} from './harness.js';

const run = promisify(execFile);

const { state, skip } = dockerForSuite();
const ROOT = path.resolve(import.meta.dirname, '../..');
const DEPLOY = path.join(ROOT, 'deploy');

interface ComposeService {
  command?: string[];
  volumes?: string[];
}
const compose = parseYaml(readFileSync(path.join(DEPLOY, 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, ComposeService>;
};

/** A compose service's bind mounts (host paths resolved from deploy/); named volumes are left out. */
function composeBinds(service: string): Array<{ source: string; target: string; mode: 'ro' | 'rw' }> {
  return (compose.services[service]?.volumes ?? [])
    .map((v) => v.split(':'))
    .filter(([src]) => src !== undefined && /^[./]/.test(src))
    .map(([src, dst, mode]) => ({
      source: path.resolve(DEPLOY, src!),
      target: dst!,
      mode: mode === 'ro' ? 'ro' : 'rw',
    }));
}

/** Every rule name (alert or record) in the repository's alerts/*.yml files. */
function repositoryRuleNames(): string[] {
  const dir = path.join(ROOT, 'alerts');
  const names: string[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yml'))) {
    const doc = parseYaml(readFileSync(path.join(dir, file), 'utf8')) as {
      groups: Array<{ rules: Array<{ alert?: string; record?: string }> }>;
    };
    for (const g of doc.groups) for (const r of g.rules) names.push((r.alert ?? r.record)!);
  }
  return names.sort();
}

interface Rule {
  name: string;
  health: string;
  lastError?: string;
  lastEvaluation: string;
}
type Api<T> = { status: string; data: T };

describe.skipIf(skip)('compose stack: exporter, Prometheus and Alertmanager in containers', () => {
  const teardown = new Teardown();
  let prometheus: StartedTestContainer;
  let alertmanager: StartedTestContainer;
  const promApi = (p: string) => `${baseUrl(prometheus, 9090)}/api/v1/${p}`;

  beforeAll(async () => {
    assertDockerReady(state);
    const network = await startNetwork(state, teardown);
    const onNetwork = (image: string, alias: string) =>
      labelledContainer(state, image).withNetworkMode(network).withNetworkAliases(alias);
    await startRemoved(
      teardown,
      onNetwork(IMAGES.exporter, 'exporter')
        .withCommand(compose.services.exporter?.command ?? [])
        .withExposedPorts(9715)
        .withWaitStrategy(Wait.forHttp('/healthz', 9715)),
    );
    alertmanager = await startRemoved(
      teardown,
      onNetwork(IMAGES.alertmanager, 'alertmanager')
        .withCommand(compose.services.alertmanager?.command ?? [])
        .withBindMounts(composeBinds('alertmanager'))
        .withExposedPorts(9093)
        .withWaitStrategy(Wait.forHttp('/-/ready', 9093)),
    );
    prometheus = await startRemoved(
      teardown,
      onNetwork(IMAGES.prometheus, 'prometheus')
        .withCommand(compose.services.prometheus?.command ?? [])
        .withBindMounts(composeBinds('prometheus'))
        .withExposedPorts(9090)
        .withWaitStrategy(Wait.forHttp('/-/ready', 9090)),
    );
  }, 120_000);
  afterAll(() => teardown.run(), 60_000);

  it('mounts the configs as the compose file does', () => {
    expect(composeBinds('prometheus').map((b) => b.target)).toEqual(
      expect.arrayContaining(['/etc/prometheus/prometheus.yml', '/etc/prometheus/alerts']),
    );
    expect(composeBinds('alertmanager').map((b) => b.target)).toContain('/etc/alertmanager/alertmanager.yml');
  });

  it('scrapes the exporter by its service name, under the job the alert rules select', async () => {
    type Targets = { activeTargets: Array<{ labels: Record<string, string>; health: string; lastError: string }> };
    const target = await pollJson(
      promApi('targets'),
      'the exporter target up',
      (body: Api<Targets>) =>
        body.data.activeTargets.find((t) => t.labels.job === 'ledger-fleet-exporter' && t.health === 'up'),
      60_000,
    );
    expect(target.labels.instance).toBe('exporter:9715');
    type Vector = { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
    const series = await pollJson(
      promApi('query?query=ledger_node_up'),
      'ledger_node_up in Prometheus',
      (body: Api<Vector>) => (body.data.result.length === DEMO_SPECS.length ? body.data.result : undefined),
      30_000,
    );
    expect(series.map((s) => s.metric.node).sort()).toEqual(DEMO_SPECS.map((s) => s.name).sort());
    expect(new Set(series.map((s) => s.metric.job))).toEqual(new Set(['ledger-fleet-exporter']));
  });

  it('loads every rule in alerts/ and evaluates each without error', async () => {
    type Rules = { groups: Array<{ rules: Rule[] }> };
    const rules = await pollJson(
      promApi('rules'),
      'one evaluation of every rule',
      (body: Api<Rules>) => {
        const all = body.data.groups.flatMap((g) => g.rules);
        return all.length > 0 && all.every((r) => !r.lastEvaluation.startsWith('0001-')) ? all : undefined;
      },
      60_000,
    );
    expect(rules.map((r) => r.name).sort()).toEqual(repositoryRuleNames());
    expect(rules.filter((r) => r.health !== 'ok').map((r) => `${r.name}: ${r.lastError}`)).toEqual([]);
  });

  it('sends alerts to the compose Alertmanager, which runs deploy/alertmanager.yml', async () => {
    type Managers = { activeAlertmanagers: Array<{ url: string }> };
    const managers = await pollJson(
      promApi('alertmanagers'),
      'Alertmanager discovered',
      (body: Api<Managers>) => (body.data.activeAlertmanagers.length > 0 ? body.data.activeAlertmanagers : undefined),
      30_000,
    );
    expect(managers.map((m) => m.url)).toEqual(['http://alertmanager:9093/api/v2/alerts']);
    const status = await pollJson(
      `${baseUrl(alertmanager, 9093)}/api/v2/status`,
      'Alertmanager status',
      (body: { config: { original: string } }) => body,
    );
    const loaded = parseYaml(status.config.original) as { route: { receiver: string }; inhibit_rules: unknown[] };
    const file = parseYaml(readFileSync(path.join(DEPLOY, 'alertmanager.yml'), 'utf8')) as {
      route: { receiver: string };
      inhibit_rules: unknown[];
    };
    expect(loaded.route.receiver).toBe(file.route.receiver);
    expect(loaded.inhibit_rules).toHaveLength(file.inhibit_rules.length);
  });
});

// Debian ships Compose v1 (docker-compose 1.29), not the v2 plugin: it validates and merges the
// files, so the stack and its local override stay loadable by a real Compose.
const composeCli = findExecutable('docker-compose');
const composeSkip = !composeCli && !REQUIRE_DOCKER;
describe.skipIf(composeSkip)('deploy/docker-compose.yml read by docker-compose', () => {
  type Merged = { services: Record<string, { image?: string; build?: { args?: Record<string, string> } }> };
  const config = async (...files: string[]): Promise<Merged> => {
    if (!composeCli)
      throw new Error('REQUIRE_DOCKER=1 but docker-compose is not installed (apt-get install docker-compose)');
    const args = ['-p', 'ledger-fleet-exporter-demo', ...files.flatMap((f) => ['-f', path.join(DEPLOY, f)]), 'config'];
    const { stdout } = await run(composeCli, args, { timeout: 30_000 });
    return parseYaml(stdout) as Merged;
  };

  it('accepts the stack, and the local override swaps in only the local images', async () => {
    const upstream = await config('docker-compose.yml');
    const local = await config('docker-compose.yml', 'docker-compose.local.yml');
    expect(Object.keys(local.services).sort()).toEqual(Object.keys(upstream.services).sort());
    expect(local.services.prometheus?.image).toBe(IMAGES.prometheus);
    expect(local.services.alertmanager?.image).toBe(IMAGES.alertmanager);
    expect(local.services.exporter?.image).toBe(IMAGES.exporter);
    expect(local.services.exporter?.build?.args?.NODE_IMAGE).toBe('lfe-local/node:local');
    expect(upstream.services.prometheus?.image).toMatch(/^prom\/prometheus:v/);
    expect(local.services.grafana?.image).toBe(upstream.services.grafana?.image); // no local Grafana
  });

  it('rejects a broken file with the reason', async () => {
    await expect(config('docker-compose.yml', '../test/containers/fixtures/broken-compose.yml')).rejects.toThrow(
      /restart/,
    );
  });
});
