// The contract between dashboards, alert rules and the exporter: every PromQL expression parses
// (with Prometheus's own lezer grammar) and every metric it names is exposed by the exporter, as
// seen in a live scrape of the demo fleet with every feature on and failing nodes in it.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentPlatformChecker, agentPlatformCollectors } from '../../src/agent/platform.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { alertingComponent } from '../../src/alerting/component.js';
import { startDaemon, type Daemon } from '../../src/daemon/index.js';
import { ShardAssignment } from '../../src/shard/index.js';
import { shardComponent } from '../../src/shard/component.js';
import { fanOutComponent } from '../../src/probe/fanOutComponent.js';
import { watchComponent } from '../../src/watch/component.js';
import {
  analyzePromql,
  dashboardExpressions,
  exposedNames,
  PROMETHEUS_GENERATED,
  recordedNames,
  ruleExpressions,
  substituteGrafanaVariables,
  type PromqlExpression,
} from '../../tools/dashboards/promql.js';
import { DEMO_SPECS, demoConfig } from '../../src/demo/fleet.js';
import { parseExposition } from '../../src/exposition/index.js';
import { createLogger } from '../../src/logger.js';
import { SimFleet } from '../../src/sim/index.js';
import { onlyRules } from '../support/alertingDaemon.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DASHBOARD_DIR = path.join(ROOT, 'grafana', 'dashboards');
const ALERTS_DIR = path.join(ROOT, 'alerts');

function jsonFiles(dir: string, suffix: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(suffix))
    .sort()
    .map((f) => path.join(dir, f));
}

const dashboardFiles = jsonFiles(DASHBOARD_DIR, '.json');
const ruleFiles = [...jsonFiles(ALERTS_DIR, '.recording.yml'), ...jsonFiles(ALERTS_DIR, '.rules.yml')];

const expressions: PromqlExpression[] = [
  ...dashboardFiles.flatMap((f) => dashboardExpressions(JSON.parse(readFileSync(f, 'utf8')), path.relative(ROOT, f))),
  ...ruleFiles.flatMap((f) => ruleExpressions(readFileSync(f, 'utf8'), path.relative(ROOT, f))),
];
const recorded = new Set(ruleFiles.flatMap((f) => recordedNames(readFileSync(f, 'utf8'))));

/** Metric name -> where it is used. */
function usedMetrics(): Map<string, string[]> {
  const used = new Map<string, string[]>();
  for (const e of expressions) {
    for (const name of analyzePromql(substituteGrafanaVariables(e.expr)).metricNames) {
      if (PROMETHEUS_GENERATED.has(name) || recorded.has(name)) continue;
      used.set(name, [...(used.get(name) ?? []), `${e.file}: ${e.where}`]);
    }
  }
  return used;
}

describe('PromQL analysis', () => {
  it('finds metric names in selectors, binary expressions, functions, subqueries and __name__ matchers', () => {
    const r = analyzePromql(
      'sum by (network) (rate(a_total{node="x"}[5m])) / on (network) group_left max(b) + max_over_time(c[1h:1m] ' +
        'offset 5m) + {__name__="d", x="y"} + histogram_quantile(0.9, e_bucket)',
    );
    expect(r.errors).toEqual([]);
    expect(r.metricNames).toEqual(['a_total', 'b', 'c', 'd', 'e_bucket']);
  });

  it('does not take label names, function names or keywords for metrics', () => {
    const r = analyzePromql(
      'count by (version) (ledger_node_info{version!=""}) > bool 1 unless on (node) absent(x) and time() > 0',
    );
    expect(r.errors).toEqual([]);
    expect(r.metricNames).toEqual(['ledger_node_info', 'x']);
  });

  it('reports syntax errors and names it cannot check', () => {
    expect(analyzePromql('rate(foo[5m]').errors.length).toBeGreaterThan(0);
    expect(analyzePromql('sum(foo{a="b"}) by').errors.length).toBeGreaterThan(0);
    expect(analyzePromql('foo{').errors.length).toBeGreaterThan(0);
    expect(analyzePromql('').errors).toEqual(['empty expression']);
    expect(analyzePromql('{__name__=~"ledger_.*"}').errors.join()).toContain('cannot check');
    // An unsubstituted Grafana variable is not PromQL.
    expect(analyzePromql('rate(foo[$__rate_interval])').errors.length).toBeGreaterThan(0);
  });

  it('replaces Grafana variables with parseable stand-ins', () => {
    const s = substituteGrafanaVariables(
      'rate(m{network=~"$network", node=~"${node:regex}", d="${datasource}", o="[[old]]"}[$__rate_interval]) * ' +
        '$__range_s',
    );
    expect(s).toBe('rate(m{network=~"x", node=~"x", d="x", o="x"}[5m]) * 300');
    expect(analyzePromql(s)).toEqual({ errors: [], metricNames: ['m'] });
  });

  it('extracts expressions from dashboard panels, nested rows and query variables, and from rule files', () => {
    const model = {
      panels: [
        { title: 'p', targets: [{ refId: 'A', expr: 'a' }] },
        { type: 'row', title: 'r', panels: [{ title: 'q', targets: [{ refId: 'B', expr: 'b' }] }] },
      ],
      templating: {
        list: [
          { name: 'n', type: 'query', query: 'label_values(c{x="$y"}, network)' },
          { name: 'm', type: 'query', query: { query: 'query_result(topk(3, d))' } },
          { name: 'l', type: 'query', query: 'label_values(network)' },
          { name: 'datasource', type: 'datasource', query: 'prometheus' },
        ],
      },
    };
    expect(dashboardExpressions(model, 'f').map((e) => e.expr)).toEqual(['a', 'b', 'c{x="$y"}', 'topk(3, d)']);
    const rules =
      'groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: up == 0\n      - record: job:r\n        ' +
      'expr: sum(x)\n';
    expect(ruleExpressions(rules, 'r.yml').map((e) => [e.where, e.expr])).toEqual([
      ['group "g" alert A', 'up == 0'],
      ['group "g" record job:r', 'sum(x)'],
    ]);
    expect(recordedNames(rules)).toEqual(['job:r']);
  });
});

describe('PromQL of the shipped dashboards and rules', () => {
  it('finds the dashboards and the rule files', () => {
    expect(dashboardFiles.length).toBeGreaterThanOrEqual(4);
    expect(ruleFiles.length).toBeGreaterThanOrEqual(1);
    expect(expressions.filter((e) => e.file.startsWith('alerts')).length).toBeGreaterThanOrEqual(16);
    expect(expressions.filter((e) => e.file.startsWith('grafana')).length).toBeGreaterThanOrEqual(40);
  });

  it('every expression parses', () => {
    const failures = expressions.flatMap((e) =>
      analyzePromql(substituteGrafanaVariables(e.expr)).errors.map(
        (err) => `${e.file}: ${e.where}: ${err}\n    ${e.expr}`,
      ),
    );
    expect(failures, failures.join('\n')).toEqual([]);
  });
});

/**
 * Metrics the demo fleet cannot show, each with the test that sees it in a live scrape: the demo's
 * nodes speak plain http, and only an https node has a certificate; the demo's services register
 * endpoints that are no real hosts, so it does not probe them.
 */
const OUTSIDE_THE_DEMO = new Set([
  'ledger_node_tls_cert_expiry_timestamp_seconds', // test/http/tls-node-daemon.test.ts
  'ledger_watch_service_endpoint_up', // test/watch/tokens-services-daemon.test.ts
  'ledger_watch_service_endpoint_duration_seconds', // test/watch/tokens-services-daemon.test.ts
]);

describe('every metric named in dashboards and rules is exposed by the exporter (live demo fleet)', () => {
  let fleet: SimFleet | undefined;
  let daemon: Daemon | undefined;
  let evidenceDir: string;
  let scrape = '';
  let receiver: Server | undefined;

  beforeAll(async () => {
    evidenceDir = mkdtempSync(path.join(os.tmpdir(), 'promql-contract-'));
    // The demo fleet (failing nodes included: flapping, a 502 proxy, an earliest build), fast,
    // plus a node that never answers, probed with a timeout longer than its interval: its
    // probes are still in flight at the next tick, so poll overruns are counted too.
    const specs = [...DEMO_SPECS, { name: 'rpc-hung', network: 'testnet', fault: 'hang' as const }];
    fleet = await SimFleet.start(specs, {
      host: '127.0.0.1',
      blockTimeMs: 200,
      flapPeriodMs: 1_000,
      controlPort: false,
    });
    const config = demoConfig(fleet, { listen: { host: '127.0.0.1', port: 0 }, intervalMs: 400, evidenceDir });
    config.nodes = config.nodes.map((n) => (n.name === 'rpc-hung' ? { ...n, timeoutMs: 2_000 } : n));
    // The demo's watched entries, read often, plus one the node refuses (an address that is no hex,
    // which a config file could not hold): its reads fail, so the read-failure counter shows too.
    const watched = config.watch!;
    const refused = {
      kind: 'account' as const,
      name: 'refused',
      address: 'g'.repeat(64),
      network: watched.entries[0]!.network,
    };
    config.watch = { ...watched, intervalMs: 1_000, entries: [...watched.entries, refused] };
    const logger = createLogger({ level: 'silent' });
    // Agent platform check on, without a key: its metrics appear with a "no key" verdict and no
    // request leaves the machine.
    const agent = new AgentPlatformChecker(
      {
        baseUrl: 'http://127.0.0.1:9/',
        apiKeyEnv: 'PROMQL_CONTRACT_NO_SUCH_KEY',
        intervalMs: 60_000,
        timeoutMs: 1_000,
      },
      { logger, env: {} },
    );
    await agent.check();
    // The CLI joins the shard metrics to every exporter (shard 0 of 1 when not sharded).
    const sharding = new ShardAssignment({}, 'host');
    sharding.apply(config);
    // Built-in alerting on, pushing the always-firing Watchdog to a local Alertmanager stand-in:
    // its notification counters (used by LedgerExporterNotificationsFailing) appear at once.
    receiver = createServer((req, res) => req.resume().on('end', () => res.writeHead(200).end('{}')));
    await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
    const amUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    config.alerting = {
      stateDir: path.join(evidenceDir, 'alerting'),
      evaluationIntervalMs: 250,
      runbookBase: 'alerts/RUNBOOKS.md',
      rules: onlyRules({ LedgerExporterWatchdog: { enabled: true, forMs: 0, keepFiringForMs: 0 } }),
      routing: {
        groupBy: ['alertname'],
        groupWaitMs: 0,
        groupIntervalMs: 1_000,
        repeatIntervalMs: 3_600_000,
        sendResolved: true,
        routes: [],
        receivers: ['am'],
      },
      receivers: [{ name: 'am', kind: 'alertmanager', urls: [amUrl], timeoutMs: 1_000 }],
      maintenance: [],
    };
    daemon = await startDaemon(config, {
      logger,
      extensions: [(registry) => agentPlatformCollectors(registry, agent)],
      components: [fanOutComponent(), watchComponent(), shardComponent(sharding), alertingComponent()],
    });

    // Poll until every used metric shows up (conditional series need a failure or two first),
    // bounded; the assertion below reports whatever is still missing.
    const wanted = [...usedMetrics().keys()];
    for (let i = 0; i < 60; i++) {
      const res = await fetch(`${daemon.url}/metrics`);
      scrape = await res.text();
      const { samples } = exposedNames(parseExposition(scrape).families);
      if (wanted.every((n) => samples.has(n))) break;
      await new Promise((r) => setTimeout(r, 250));
    }
  });

  afterAll(async () => {
    await daemon?.close(1_000);
    await fleet?.close();
    receiver?.closeAllConnections();
    receiver?.close();
    rmSync(evidenceDir, { recursive: true, force: true });
  });

  it('the scrape is well-formed and holds failing nodes', () => {
    const { families } = parseExposition(scrape);
    const failures = families.find((f) => f.name === 'ledger_probe_failures_total');
    expect(failures?.samples.some((s) => s.labels.reason === 'http_5xx')).toBe(true);
    expect(families.find((f) => f.name === 'ledger_node_up')?.samples.some((s) => s.value === 0)).toBe(true);
  });

  it('no dashboard or rule names a metric the exporter does not expose', () => {
    const { samples } = exposedNames(parseExposition(scrape).families);
    const missing = [...usedMetrics()]
      .filter(([name]) => !samples.has(name) && !OUTSIDE_THE_DEMO.has(name))
      .map(([name, where]) => `${name}  (used in ${where.join('; ')})`);
    expect(missing, `not in the live scrape:\n${missing.join('\n')}`).toEqual([]);
  });
});
