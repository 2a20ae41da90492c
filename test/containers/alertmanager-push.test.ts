// The built-in alert engine pushing to a real Alertmanager: the exporter image with an `alerting:`
// section naming an alertmanager receiver by its service name, a simulated fleet whose node-3
// answers 502, and Alertmanager (Debian's binary, local image) that must end up holding the
// LedgerNodeDown alert for node-3 and for no healthy node.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Wait, type StartedTestContainer } from 'testcontainers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertDockerReady,
  baseUrl,
  dockerForSuite,
  IMAGES,
  labelledContainer,
  logsOf,
  pollJson,
  startNetwork,
  startRemoved,
  Teardown,
} from './harness.js';

const { state, skip } = dockerForSuite();

interface AmAlert {
  labels: Record<string, string>;
  status: { state: string };
}

describe.skipIf(skip)('alert engine -> Alertmanager container', () => {
  const teardown = new Teardown();
  let hostDir = '';
  let alertmanager: StartedTestContainer;
  let exporter: StartedTestContainer;

  beforeAll(async () => {
    assertDockerReady(state);
    hostDir = mkdtempSync(path.join(os.tmpdir(), 'lfe-containers-am-'));
    const configDir = path.join(hostDir, 'config');
    mkdirSync(configDir);
    const network = await startNetwork(state, teardown);
    alertmanager = await startRemoved(
      teardown,
      labelledContainer(state, IMAGES.alertmanager)
        .withNetworkMode(network)
        .withNetworkAliases('alertmanager')
        .withCopyContentToContainer([
          {
            target: '/etc/alertmanager/alertmanager.yml',
            content: 'route: {receiver: none}\nreceivers: [{name: none}]\n',
          },
        ])
        .withExposedPorts(9093)
        .withWaitStrategy(Wait.forHttp('/-/ready', 9093)),
    );
    await startRemoved(
      teardown,
      labelledContainer(state, IMAGES.exporter)
        .withNetworkMode(network)
        .withNetworkAliases('fleet')
        .withCommand([
          'simulate',
          '--layout',
          'shared-port',
          '--host',
          '0.0.0.0',
          '--port',
          '9710',
          '--nodes',
          '4',
          '--faults',
        ])
        .withWaitStrategy(Wait.forLogMessage(/"event":"ready"/)),
    );
    writeFileSync(
      path.join(configDir, 'fleet.yaml'),
      [
        'listen: 0.0.0.0:9715',
        'defaults: {interval: 1s, timeout: 800ms}',
        'nodes:',
        ...[1, 2, 3].map((i) => `  - {name: node-${i}, url: 'http://fleet:9710/n/node-${i}', network: simnet}`),
        'evidence: {dir: /data/evidence}',
        'alerting:',
        '  stateDir: /data/alerting',
        '  evaluationInterval: 1s',
        '  groupWait: 0s',
        '  rules: {LedgerNodeDown: {for: 0s}}',
        '  receivers:',
        "    - {name: am, alertmanager: {urls: ['http://alertmanager:9093']}}",
        '',
      ].join('\n'),
    );
    exporter = await startRemoved(
      teardown,
      labelledContainer(state, IMAGES.exporter)
        .withNetworkMode(network)
        .withBindMounts([{ source: configDir, target: '/config', mode: 'ro' }])
        .withCommand(['--config', '/config/fleet.yaml'])
        .withExposedPorts(9715)
        .withWaitStrategy(Wait.forHttp('/healthz', 9715)),
    );
  }, 120_000);
  afterAll(async () => {
    try {
      await teardown.run();
    } finally {
      if (hostDir) rmSync(hostDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('pushes LedgerNodeDown for the failing node, and only for it', async () => {
    const down = await pollJson(
      `${baseUrl(alertmanager, 9093)}/api/v2/alerts?filter=alertname%3D%22LedgerNodeDown%22`,
      'LedgerNodeDown in Alertmanager',
      (alerts: AmAlert[]) => (alerts.length > 0 ? alerts : undefined),
      60_000,
    ).catch(async (err: Error) => {
      throw new Error(`${err.message}\n${await logsOf(exporter)}`);
    });
    expect(down.map((a) => a.labels.node)).toEqual(['node-3']);
    expect(down[0]!.labels).toMatchObject({ alertname: 'LedgerNodeDown', network: 'simnet', severity: 'critical' });
    expect(down[0]!.status.state).toBe('active');
  });
});
