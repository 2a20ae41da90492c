// docs/metrics.md against a running exporter: the CLI with every section configured (agent
// platform, alerting with a receiver, a maintenance window and a heartbeat, sharding) polls a
// simulated node; every family its /metrics serves is in the catalogue the page is generated
// from, with no label the page does not name, and every family the page says is always there is.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExposition } from '../../src/exposition/index.js';
import type { MetricFamily } from '../../src/exposition/types.js';
import { SimFleet } from '../../src/sim/index.js';
import { metricCatalogue, type MetricDoc } from '../../tools/docs/metricCatalogue.js';
import { startExporter, type ExporterChild } from '../support/exporterChild.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { waitFor } from '../support/processes.js';

const KEY = 'docs-test-agent-key';
/** Labels a family's samples carry beyond its own: histogram buckets and summary quantiles. */
const SAMPLE_LABELS = ['le', 'quantile'];

describe('docs/metrics.md against a running exporter', () => {
  let dir: string;
  let fleet: SimFleet | undefined;
  let platform: FakePlatform | undefined;
  let receiver: Server | undefined;
  let exporter: ExporterChild | undefined;
  let families: MetricFamily[] = [];
  let catalogue: MetricDoc[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'lfe-docs-live-'));
    fleet = await SimFleet.start([{ name: 'docs-1', network: 'docsnet', build: 'current', peers: 5 }], {
      host: '127.0.0.1',
      layout: 'port-per-node',
      blockTimeMs: 500,
    });
    platform = await startFakePlatform({ validKeys: [KEY], profile: { id: 'agent-7', name: 'docs agent' } });
    receiver = createServer((_req, res) => res.writeHead(200).end('ok'));
    await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
    const local = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    writeFileSync(path.join(dir, 'agent-key'), KEY);
    const config = [
      'listen: 127.0.0.1:0',
      'defaults: {interval: 1s, timeout: 800ms}',
      'nodes:',
      ...fleet.nodes.map((n) => `  - {name: ${n.name}, url: "${n.url}", network: docsnet, labels: {role: validator}}`),
      'evidence: {dir: ./evidence}',
      `agentPlatform: {baseUrl: "${platform.url}", apiKeyFile: ./agent-key, interval: 1s}`,
      'alerting:',
      '  stateDir: ./alerting',
      '  evaluationInterval: 500ms',
      `  receivers: [{name: hook, webhook: {url: "${local}/hook"}}]`,
      '  maintenance: [{name: never, start: "2000-01-01T00:00:00Z", end: "2000-01-01T01:00:00Z"}]',
      `  heartbeat: {url: "${local}/ping", interval: 5s, timeout: 2s}`,
      'sharding: {shard: 0, totalShards: 1}',
      '',
    ].join('\n');
    writeFileSync(path.join(dir, 'fleet.yaml'), config);
    exporter = await startExporter(path.join(dir, 'fleet.yaml'));
    const url = exporter.url;
    catalogue = Object.values(await metricCatalogue()).flat();
    // Ready, the key checked, the heartbeat accepted: the families that wait for those are in.
    families = await waitFor(
      'a scrape with the agent verdict and a heartbeat',
      async () => {
        if ((await fetch(`${url}/readyz`)).status !== 200) return undefined;
        const parsed = parseExposition(await (await fetch(`${url}/metrics`)).text()).families;
        const value = (name: string) => parsed.find((f) => f.name === name)?.samples[0]?.value;
        return value('ledger_agent_platform_info') === 1 &&
          (value('ledger_alert_heartbeat_last_success_timestamp_seconds') ?? 0) > 0
          ? parsed
          : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 300, context: () => exporter?.output() ?? '' },
    );
  }, 60_000);

  afterAll(async () => {
    await exporter?.kill();
    await fleet?.close();
    await platform?.close();
    receiver?.closeAllConnections();
    await new Promise((r) => (receiver ? receiver.close(r) : r(undefined)));
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves no family the catalogue lacks, and no label it does not name', () => {
    const own = families.filter((f) => !f.name.startsWith('ledger_upstream_'));
    expect(own.length).toBeGreaterThan(60);
    for (const f of own) {
      const doc = catalogue.find((d) => d.name === f.name);
      expect(doc, `${f.name} is served but not in docs/metrics.md`).toBeDefined();
      expect(f.type, f.name).toBe(doc!.type);
      const documented = new Set([...doc!.labels.filter((l) => !l.startsWith('<')), ...SAMPLE_LABELS]);
      // ledger_node_info's `<each configured label>` is the config's one label key here.
      const configured = doc!.labels.some((l) => l.startsWith('<each configured')) ? ['role'] : [];
      for (const s of f.samples)
        for (const label of Object.keys(s.labels))
          expect([...documented, ...configured], `${f.name}{${label}}`).toContain(label);
    }
  });

  it('serves every family the page says is always there, and the node re-exposed as ledger_upstream_*', () => {
    const served = new Set(families.map((f) => f.name));
    const always = catalogue.filter((d) => d.presence.startsWith('Always'));
    expect(always.length).toBeGreaterThan(20);
    expect(always.map((d) => d.name).filter((n) => !served.has(n))).toEqual([]);
    expect(
      families.some((f) => f.name.startsWith('ledger_upstream_') && f.samples.some((s) => s.labels.node === 'docs-1')),
    ).toBe(true);
  });
});
