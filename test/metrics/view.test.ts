import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { MetricFamily, ProbeResult } from '../../src/domain.js';
import type { BuiltInProbeData as ProbeData } from '../../src/probes/index.js';
import { prepareUpstream, renderUpstream } from '../../src/exposition/index.js';
import { MetricsView, type ExporterCounters } from '../../src/metrics/view.js';
import { FleetState } from '../../src/state/fleetState.js';
import { buildSnapshot } from '../../src/state/snapshot.js';
import { checkTools, requireTool } from '../support/prometheus-tools.js';
import { target } from '../support/targets.js';

const ok = (name: string, data: ProbeData): [string, ProbeResult] => [
  name,
  { kind: 'ok', probe: data.probe, startedAt: 1_700_000_000_000, durationMs: 12, data, namespace: 'claw' },
];
const noBackoff = { after: 1000, maxFactor: 1, jitter: 0, random: () => 0 };

function setup() {
  const state = new FleetState(
    [
      target('val-1', { labels: { region: 'eu' } }),
      target('val-2', { labels: { role: 'validator' } }),
      target('rpc-1', { network: 'testnet', probes: ['health'] }),
    ],
    noBackoff,
  );
  const counters: ExporterCounters = {
    configReloads: { success: 2, failure: 1 },
    pollOverruns: new Map([['metrics', 3]]),
  };
  const upstreamFamilies: MetricFamily[] = [
    {
      name: 'peers_connected',
      help: 'Connected peers',
      type: 'gauge',
      samples: [{ name: 'peers_connected', labels: {}, value: 7 }],
    },
    {
      name: 'blocks_total',
      help: 'Blocks',
      type: 'counter',
      samples: [{ name: 'blocks_total', labels: {}, value: 42 }],
    },
  ];
  let networks = {};
  const view = () =>
    new MetricsView(
      { version: '9.9.9', infoLabelKeys: ['region', 'role'], defaultMetrics: false },
      () => ({
        snapshot: buildSnapshot(state.nodes(), networks, Date.now()),
        upstream: [...state.nodes()].flatMap((n) =>
          n.upstream?.families ? [prepareUpstream(n.target.name, n.target.network, n.upstream.families)] : [],
        ),
        counters,
      }),
      (sources, om, out) => void renderUpstream(sources, { openMetrics: om, write: (p) => out.write(p) }),
    );
  for (const [n, r] of [
    ok('val-1', {
      probe: 'health',
      value: { status: 'ok', version: '0.5.8', chainId: 'claw-mainnet', height: 500, peerCount: 8, epoch: 5 },
    }),
    ok('val-2', { probe: 'health', value: { status: 'degraded', version: '0.5.7', height: 490 } }),
    ok('val-1', {
      probe: 'validators',
      value: [{ address: 'ab'.repeat(32), stake: 123_456_789_012_345_678_901n, weight: 3, agentScore: 77 }],
    }),
    ok('val-1', { probe: 'metrics', value: upstreamFamilies }),
    ok('rpc-1', { probe: 'health', value: { status: 'ok', height: 9 } }),
  ] as const) {
    state.apply(n, r);
  }
  state.apply('val-2', {
    kind: 'failed',
    probe: 'blockNumber',
    startedAt: 1,
    durationMs: 5000,
    reason: 'timeout',
    message: 'timed out',
  });
  state.apply('val-2', { kind: 'unsupported', probe: 'miningStats', startedAt: 1, durationMs: 2, message: 'nope' });
  return { state, view, counters, setNetworks: (n: object) => (networks = n) };
}

describe('MetricsView', () => {
  it('renders the contract metrics from the snapshot', async () => {
    const { view } = setup();
    const { body: raw, contentType } = await view().render('text');
    const body = raw.toString();
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    const lines = body.split('\n');
    expect(lines).toContain('ledger_node_up{node="val-1",network="mainnet"} 1');
    expect(lines).toContain('ledger_node_healthy{node="val-2",network="mainnet"} 0');
    expect(lines).toContain('ledger_node_height_lag_blocks{node="val-2",network="mainnet"} 10');
    expect(lines).toContain(
      'ledger_node_info{node="val-1",network="mainnet",version="0.5.8",chain_id="claw-mainnet",' +
        'rpc_namespace="claw",region="eu"} 1',
    );
    expect(lines).toContain(
      'ledger_node_info{node="val-2",network="mainnet",version="0.5.7",chain_id="",' +
        'rpc_namespace="claw",role="validator"} 1',
    );
    expect(lines).toContain(
      'ledger_probe_failures_total{node="val-2",network="mainnet",probe="blockNumber",reason="timeout"} 1',
    );
    expect(lines).toContain(
      'ledger_probe_failures_total{node="val-2",network="mainnet",probe="blockNumber",reason="http_5xx"} 0',
    );
    // other reasons appear from their first occurrence only
    expect(body).not.toContain(
      'ledger_probe_failures_total{node="val-2",network="mainnet",probe="blockNumber",reason="connect"}',
    );
    expect(lines).toContain('ledger_probe_supported{node="val-2",network="mainnet",probe="miningStats"} 0');
    // an unsupported probe is not a failing one: no success sample at all (neither 0 nor a made-up 1)
    expect(body).not.toMatch(/ledger_probe_success\{node="val-2",network="mainnet",probe="miningStats"\}/);
    expect(lines).toContain('ledger_probe_success{node="val-2",network="mainnet",probe="blockNumber"} 0');
    expect(lines).toContain('ledger_probe_duration_seconds{node="val-2",network="mainnet",probe="blockNumber"} 5');
    expect(lines).toContain('ledger_fleet_nodes{network="mainnet"} 2');
    expect(lines).toContain('ledger_fleet_versions{network="mainnet"} 2');
    expect(lines).toContain('ledger_fleet_nodes_up{network="testnet"} 1');
    expect(lines).toContain(
      `ledger_validator_stake_tokens{network="mainnet",validator="${'ab'.repeat(32)}"} 123456789012.34567`,
    );
    expect(lines).toContain('ledger_validators_active{network="mainnet"} 1');
    expect(lines.find((l) => l.startsWith('ledger_exporter_build_info{'))).toMatch(
      /^ledger_exporter_build_info\{version="9\.9\.9",revision="[^"]+",nodejs_version="v\d+\.\d+\.\d+"\} 1$/,
    );
    expect(lines).toContain('ledger_exporter_config_reloads_total{result="failure"} 1');
    expect(lines).toContain('ledger_exporter_poll_overruns_total{probe="metrics"} 3');
    expect(lines).toContain('ledger_upstream_peers_connected{node="val-1",network="mainnet"} 7');
    expect(lines).toContain('ledger_upstream_blocks_total{node="val-1",network="mainnet"} 42');
    // a probe that never ran has no success series; a node without health values has none
    expect(body).not.toMatch(/ledger_probe_success\{node="rpc-1",network="testnet",probe="metrics"/);
    expect(body).not.toMatch(/ledger_node_peers\{node="rpc-1"/);
  });

  it('respects configured decimals per network', async () => {
    const { view, setNetworks } = setup();
    setNetworks({ mainnet: { decimals: 18 } });
    const body = (await view().render('text')).body.toString();
    expect(body).toContain(
      `ledger_validator_stake_tokens{network="mainnet",validator="${'ab'.repeat(32)}"} 123.45678901234568`,
    );
  });

  it('leaves no stale series: removed nodes, departed validators and changed versions disappear', async () => {
    const { view, state } = setup();
    const v = view();
    expect((await v.render('text')).body.toString()).toContain('node="val-2"');
    state.setTargets([
      target('val-1', { labels: { region: 'eu' } }),
      target('rpc-1', { network: 'testnet', probes: ['health'] }),
    ]);
    state.apply('val-1', ok('val-1', { probe: 'validators', value: [{ address: 'cd'.repeat(32), stake: 1n }] })[1]);
    state.apply('val-1', ok('val-1', { probe: 'health', value: { status: 'ok', version: '0.6.0', height: 501 } })[1]);
    const body = (await v.render('text')).body.toString();
    expect(body).not.toContain('node="val-2"');
    expect(body).not.toContain('ab'.repeat(32));
    expect(body).toContain('cd'.repeat(32));
    expect(body).not.toContain('version="0.5.8"');
    expect(body).toContain('version="0.6.0"');
  });

  it('renders OpenMetrics with one EOF and counter families named without _total', async () => {
    const { view } = setup();
    const { body: raw, contentType } = await view().render('openmetrics');
    const body = raw.toString();
    expect(contentType).toMatch(/^application\/openmetrics-text; version=1\.0\.0/);
    expect(body.endsWith('# EOF\n')).toBe(true);
    expect(body.match(/# EOF/g)).toHaveLength(1);
    expect(body).toContain('# TYPE ledger_probe_failures counter');
    expect(body).toContain(
      'ledger_probe_failures_total{node="val-2",network="mainnet",probe="blockNumber",reason="timeout"} 1',
    );
    expect(body).toContain('# TYPE ledger_upstream_blocks counter');
    expect(body).toContain('ledger_upstream_blocks_total{node="val-1",network="mainnet"} 42');
    // the text registry keeps its names after an OpenMetrics render (prom-client renames in place)
    const text = await view().render('text');
    expect(text.body.toString()).toContain('# TYPE ledger_probe_failures_total counter');
  });

  it('serialises concurrent scrapes without mixing them up', async () => {
    const { view } = setup();
    const v = view();
    const results = await Promise.all([v.render('text'), v.render('openmetrics'), v.render('text')]);
    expect(results[0].body.toString()).toBe(results[2].body.toString());
    expect(results[1].body.toString()).toContain('# EOF');
  });

  const tools = checkTools(['promtool']);
  it.skipIf(tools.skip)(`passes promtool check metrics${tools.skipNote}`, async () => {
    const promtool = requireTool(tools, 'promtool');
    const { view } = setup();
    const body = (await view().render('text')).body.toString();
    const r = spawnSync(promtool, ['check', 'metrics'], { input: body, encoding: 'utf8' });
    // promtool exits 1 for lint warnings too; errors are what must not appear.
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/error/i);
  });
});
