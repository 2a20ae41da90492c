// The project's image (ledger-fleet-exporter:local, built by scripts/containers/build-images.sh on
// the local Node base) run for real: as a non-root user, healthy by its own HEALTHCHECK, serving
// the demo fleet, and as a user runs it: a mounted config and an evidence volume that outlives a
// restart, polling a simulated fleet in another container across a container network.
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Wait, type StartedTestContainer } from 'testcontainers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SPECS } from '../../src/demo/fleet.js';
import { MALLOC_ENV } from '../../src/mallocPolicy.js';
import {
  assertDockerReady,
  baseUrl,
  dockerForSuite,
  IMAGES,
  imageHealthcheck,
  labelledContainer,
  logsOf,
  pollHttp,
  pollJson,
  startNetwork,
  startRemoved,
  Teardown,
} from './harness.js';

const { state, skip } = dockerForSuite();
const UID_NODE = 1000; // the image's `node` user

/** ledger_node_up samples by node name. */
function nodeUp(metrics: string): Map<string, number> {
  const up = new Map<string, number>();
  for (const m of metrics.matchAll(/^ledger_node_up\{[^}]*\bnode="([^"]+)"[^}]*\} (\S+)$/gm))
    up.set(m[1]!, Number(m[2]));
  return up;
}

/** Nodes whose health probe has run at least once (a node is listed with ledger_node_up 0 before its first poll). */
function polled(metrics: string): Set<string> {
  const out = new Set<string>();
  for (const m of metrics.matchAll(
    /^ledger_probe_duration_seconds\{[^}]*\bnode="([^"]+)"[^}]*\bprobe="health"[^}]*\} \S+$/gm,
  ))
    out.add(m[1]!);
  return out;
}

async function startExporter(
  teardown: Teardown,
  configure: (c: ReturnType<typeof labelledContainer>) => ReturnType<typeof labelledContainer> = (c) => c,
): Promise<StartedTestContainer> {
  // The image's own health command, on a 1 s interval instead of 30 s so the wait stays short.
  const test = await imageHealthcheck(IMAGES.exporter);
  const container = configure(labelledContainer(state, IMAGES.exporter))
    .withExposedPorts(9715, 9716)
    .withHealthCheck({
      test: test as ['CMD', ...string[]],
      interval: 1_000,
      timeout: 5_000,
      retries: 30,
      startPeriod: 1_000,
    })
    .withWaitStrategy(Wait.forHealthCheck())
    .withStartupTimeout(60_000);
  return startRemoved(teardown, container);
}

describe.skipIf(skip)('exporter image: demo fleet', () => {
  const teardown = new Teardown();
  let exporter: StartedTestContainer;

  beforeAll(async () => {
    assertDockerReady(state);
    exporter = await startExporter(teardown);
  }, 90_000);
  afterAll(() => teardown.run(), 60_000);

  it('runs as a non-root user', async () => {
    const uid = await exporter.exec(['node', '-e', 'process.stdout.write(String(process.getuid()))']);
    expect(uid.exitCode).toBe(0);
    expect(Number(uid.output.trim())).toBe(UID_NODE);
  });

  it("runs with glibc's malloc setting of src/mallocPolicy.ts in its environment", async () => {
    for (const [k, v] of Object.entries(MALLOC_ENV)) {
      const seen = await exporter.exec(['node', '-e', `process.stdout.write(process.env.${k} ?? '(unset)')`]);
      expect(seen.exitCode).toBe(0);
      expect(seen.output.trim()).toBe(v);
    }
  });

  it('is healthy by its own HEALTHCHECK, and unhealthy when the command cannot reach /healthz', async () => {
    const test = await imageHealthcheck(IMAGES.exporter);
    expect(test.slice(0, 2)).toEqual(['CMD', 'node']);
    const ok = await exporter.exec(test.slice(1));
    expect(ok.exitCode).toBe(0);
    // The same command against a port nothing listens on must fail, or the check proves nothing.
    const bad = await exporter.exec(test.slice(1), { env: { HEALTHCHECK_URL: 'http://127.0.0.1:1/healthz' } });
    expect(bad.exitCode).not.toBe(0);
  });

  it('serves /metrics for every demo node through the mapped port', async () => {
    const up = await pollHttp(
      `${baseUrl(exporter, 9715)}/metrics`,
      'ledger_node_up for every demo node, each polled once',
      (body) => {
        const seen = nodeUp(body);
        return seen.size === DEMO_SPECS.length && polled(body).size === DEMO_SPECS.length ? seen : undefined;
      },
    );
    expect([...up.keys()].sort()).toEqual(DEMO_SPECS.map((s) => s.name).sort());
    expect(up.get('val-eu-1')).toBe(1);
  });

  it('prints true addresses: the bound 0.0.0.0:9715, and the simulator API on its published 9716', async () => {
    const logs = await new Promise<string>((resolve, reject) => {
      let text = '';
      void exporter.logs().then((stream) => {
        stream.on('data', (c: Buffer | string) => (text += c.toString()));
        setTimeout(() => {
          stream.destroy();
          resolve(text);
        }, 1_000);
      }, reject);
    });
    expect(logs).toContain('simulator API:  http://127.0.0.1:9716/nodes');
    expect(logs).toMatch(/"listen":"0\.0\.0\.0:9715"/);
    const nodes = await pollHttp(
      `${baseUrl(exporter, 9716)}/nodes`,
      'the simulator API through the mapped port',
      (body) => body,
    );
    for (const spec of DEMO_SPECS) expect(nodes).toContain(spec.name);
  });
});

describe.skipIf(skip)('exporter image: mounted config, evidence volume, restart', () => {
  const teardown = new Teardown();
  let hostDir = '';
  let evidenceDir = '';
  let exporter: StartedTestContainer;

  beforeAll(async () => {
    assertDockerReady(state);
    hostDir = mkdtempSync(path.join(os.tmpdir(), 'lfe-containers-'));
    const configDir = path.join(hostDir, 'config');
    evidenceDir = path.join(hostDir, 'evidence');
    const network = await startNetwork(state, teardown);
    // A simulated fleet in its own container, one shared port; node-3 answers 502 (--faults).
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
        .withWaitStrategy(Wait.forLogMessage(/"event":"ready"/))
        .withStartupTimeout(60_000),
    );
    mkdirSync(configDir);
    mkdirSync(evidenceDir);
    chmodSync(evidenceDir, 0o700);
    chownSync(evidenceDir, UID_NODE, UID_NODE);
    writeFileSync(
      path.join(configDir, 'fleet.yaml'),
      [
        'listen: 0.0.0.0:9715',
        'defaults: {interval: 1s, timeout: 800ms}',
        'nodes:',
        ...[1, 2, 3].map((i) => `  - {name: node-${i}, url: 'http://fleet:9710/n/node-${i}', network: simnet}`),
        'evidence: {dir: /data/evidence}',
        '',
      ].join('\n'),
    );
    exporter = await startExporter(teardown, (c) =>
      c
        .withNetworkMode(network)
        .withBindMounts([
          { source: configDir, target: '/config', mode: 'ro' },
          { source: evidenceDir, target: '/data/evidence', mode: 'rw' },
        ])
        .withCommand(['--config', '/config/fleet.yaml']),
    );
  }, 120_000);
  afterAll(async () => {
    try {
      await teardown.run();
    } finally {
      if (hostDir) rmSync(hostDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('polls the nodes named in the mounted config across the container network', async () => {
    const up = await pollHttp(`${baseUrl(exporter, 9715)}/metrics`, 'node-1 up and node-3 down', (body) => {
      const seen = nodeUp(body);
      return seen.get('node-1') === 1 && seen.get('node-3') === 0 ? seen : undefined;
    });
    expect([...up.keys()].sort()).toEqual(['node-1', 'node-2', 'node-3']);
  });

  it('writes evidence of the 502s to the mounted volume, and still serves it after a restart', async () => {
    const evidenceUrl = () => `${baseUrl(exporter, 9715)}/api/evidence?node=node-3&limit=500`;
    type Evidence = { records: Array<{ time: string; node: string; status: number }> };
    const before = await pollJson(evidenceUrl(), 'evidence of node-3', (body: Evidence) =>
      body.records.length > 0 ? body.records : undefined,
    );
    expect(before.every((r) => r.node === 'node-3' && r.status === 502)).toBe(true);
    expect(readdirSync(evidenceDir).length).toBeGreaterThan(0); // on the host side of the mount

    await exporter.restart({ timeout: 10_000 }); // SIGTERM, as `docker restart` does
    const oldest = before.map((r) => r.time).sort()[0]!;
    const after = await pollJson(evidenceUrl(), 'evidence after the restart', (body: Evidence) =>
      body.records.length > before.length ? body.records : undefined,
    ).catch(async (err: Error) => {
      throw new Error(`${err.message}\n${await logsOf(exporter)}`);
    });
    expect(after.map((r) => r.time)).toContain(oldest);
  });
});
