// The /metrics view keeps per-node work between scrapes (upstream lines prepared as results
// arrive, per-node series kept while a node is unchanged). A long-lived view, fed every result as
// the daemon feeds it, must write exactly what a view built from scratch over the same state
// writes: after many results, failures and backoff, reloads that change info label keys, labels
// and networks, node removal and re-adding, upstream families that clash between nodes, and
// series dropped because they echo a secret.
import { describe, expect, it } from 'vitest';
import type { MetricFamily, NodeTarget, ProbeName, ProbeResult } from '../../src/domain.js';
import type { BuiltInProbeData as ProbeData } from '../../src/probes/index.js';
import { FleetUpstream } from '../../src/exposition/index.js';
import { MetricsView, type ExporterCounters } from '../../src/metrics/view.js';
import { FleetState } from '../../src/state/fleetState.js';
import { buildSnapshot } from '../../src/state/snapshot.js';
import { target } from '../support/targets.js';

const SECRET = 'sekret-token-123';
const scrub = (text: string) => text.split(SECRET).join('[redacted]');
const networks = { mainnet: { decimals: 9 }, testnet: { decimals: 6 } };
const counters: ExporterCounters = { configReloads: { success: 0, failure: 0 }, pollOverruns: new Map() };

/** A view wired as the daemon wires it, over `state`, at the clock `clock.now`. */
function viewOver(state: FleetState, clock: { now: number }, infoLabelKeys: string[]): MetricsView {
  const upstream = new FleetUpstream(() => state.nodes(), { scrub });
  return new MetricsView(
    { version: '9.9.9', infoLabelKeys, defaultMetrics: false, extensions: [(r) => upstream.collectors(r)] },
    () => ({ snapshot: buildSnapshot(state.nodes(), networks, clock.now), upstream: upstream.sources(), counters }),
    (sources, om, out) => upstream.write(sources, om, out),
    (node) => upstream.prepare(node),
  );
}

/** A small deterministic generator (tests must not depend on Math.random). */
function rng(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s % n;
  };
}

function upstreamAnswer(pick: (n: number) => number, node: string, round: number): MetricFamily[] {
  const fams: MetricFamily[] = [
    {
      name: 'block_height',
      help: 'Height',
      type: 'gauge',
      samples: [{ name: 'block_height', labels: {}, value: round }],
    },
    // Same name, another TYPE on some nodes: a conflict between nodes.
    pick(4) === 0
      ? {
          name: 'txs',
          help: 'Txs as gauge',
          type: 'gauge',
          samples: [{ name: 'txs', labels: { node: node }, value: round }],
        }
      : {
          name: 'txs',
          help: 'Txs',
          type: 'counter',
          samples: [{ name: 'txs', labels: { kind: 'in' }, value: round * 2 }],
        },
    {
      name: 'rpc_seconds',
      help: pick(3) === 0 ? `help with ${SECRET}` : undefined,
      type: 'histogram',
      samples: [
        { name: 'rpc_seconds_bucket', labels: { le: '0.5', method: 'get' }, value: 1 },
        { name: 'rpc_seconds_bucket', labels: { le: '+Inf', method: 'get' }, value: 2 },
        { name: 'rpc_seconds_sum', labels: { method: 'get' }, value: 0.7 },
        { name: 'rpc_seconds_count', labels: { method: 'get' }, value: 2 },
      ],
    },
  ];
  // A series echoing our secret is dropped (and counted) on some answers.
  if (pick(3) === 0)
    fams.push({
      name: 'echo',
      type: 'gauge',
      samples: [
        { name: 'echo', labels: { auth: `Bearer ${SECRET}` }, value: 1 },
        { name: 'echo', labels: { auth: 'none' }, value: 2 },
      ],
    });
  // A family whose sample names clash with another node's histogram (name_collision).
  if (pick(5) === 0)
    fams.push({
      name: 'rpc_seconds_count',
      type: 'gauge',
      samples: [{ name: 'rpc_seconds_count', labels: {}, value: 9 }],
    });
  return fams;
}

function result(pick: (n: number) => number, node: string, probe: ProbeName, round: number, at: number): ProbeResult {
  if (pick(6) === 0)
    return {
      kind: 'failed',
      probe,
      startedAt: at,
      durationMs: 5 + pick(50),
      reason: (['timeout', 'connect', 'http_5xx', 'rpc_error'] as const)[pick(4)]!,
      message: 'no',
    };
  if (pick(20) === 0) return { kind: 'unsupported', probe, startedAt: at, durationMs: 2, message: 'not offered' };
  const height = 1000 + round + pick(5);
  const data: ProbeData =
    probe === 'health'
      ? {
          probe,
          value: {
            status: pick(5) === 0 ? 'degraded' : 'ok',
            version: `0.5.${pick(3)}`,
            chainId: 'claw-"main"',
            height,
            peerCount: pick(9),
            uptimeSecs: round,
            epoch: 3,
          },
        }
      : probe === 'metrics'
        ? { probe, value: upstreamAnswer(pick, node, round), droppedSamples: pick(4) === 0 ? 3 : 0 }
        : probe === 'blockNumber'
          ? { probe, value: height }
          : probe === 'miningStats'
            ? {
                probe,
                value: {
                  totalMiners: 10,
                  activeMiners: pick(10),
                  currentBlockReward: 10n ** 9n + BigInt(round),
                  miningUpgradeHeight: 1200,
                  upgraded: false,
                },
              }
            : {
                probe,
                value: Array.from({ length: 1 + pick(3) }, (_, k) => ({
                  address: `0x${k}${pick(2)}`,
                  stake: 10n ** 10n * BigInt(k + 1),
                  weight: k,
                  agentScore: 50,
                })),
              };
  return { kind: 'ok', probe, startedAt: at, durationMs: 3 + pick(40), data, namespace: pick(2) ? 'claw' : 'chain' };
}

function targets(pick: (n: number) => number, version: number): NodeTarget[] {
  const keys = ['region', 'role', `tier${version % 3}`];
  return Array.from({ length: 6 + pick(4) }, (_, i) =>
    target(`node-${i}${i === 2 ? '"q' : ''}`, {
      network: i % 3 === 0 ? 'testnet' : pick(7) === 0 ? 'devnet' : 'mainnet',
      labels: Object.fromEntries(keys.filter(() => pick(2) === 0).map((k) => [k, `v${version}\\${pick(3)}`])),
      probes: i === 4 ? ['health', 'metrics'] : undefined,
    }),
  ).map((t) => ({ ...t, probes: t.probes ?? ['health', 'metrics', 'blockNumber', 'miningStats', 'validators'] }));
}

const infoKeysOf = (ts: NodeTarget[]) => [...new Set(ts.flatMap((t) => Object.keys(t.labels)))].sort();

async function bodies(view: MetricsView): Promise<[string, string]> {
  const text = (await view.render('text')).body.toString('utf8');
  const om = (await view.render('openmetrics')).body.toString('utf8');
  return [text, om];
}

describe('incremental /metrics view', () => {
  it('writes what a fresh view writes, byte for byte, after many changes (both formats)', async () => {
    const pick = rng(12);
    const clock = { now: 1_700_000_000_000 };
    let ts = targets(pick, 0);
    const state = new FleetState(ts, { after: 2, maxFactor: 4, jitter: 0, random: () => 0 });
    const live = viewOver(state, clock, infoKeysOf(ts));
    let compared = 0;
    for (let step = 1; step <= 240; step++) {
      clock.now += 250;
      if (step % 60 === 0) {
        // Reload: labels (info keys), networks, probe lists, nodes removed and added.
        ts = targets(pick, step);
        state.setTargets(ts);
        live.setInfoLabelKeys(infoKeysOf(ts));
      }
      for (const node of state.nodes()) {
        if (pick(3) !== 0) continue;
        for (const probe of node.target.probes) {
          state.apply(
            node.target.name,
            result(pick, node.target.name, probe, step, clock.now - 100),
            pick(10) === 0 ? '1' : undefined,
          );
          live.noteResult(node);
        }
      }
      // As the batch timer does between scrapes (the lag and backoff of a built node change later).
      if (step % 3 === 0) live.buildChanged(clock.now);
      if (step % 7 === 0) await live.render(step % 2 ? 'text' : 'openmetrics');
      if (step % 20 === 0) {
        // Conflicts are counted as of the previous scrape: both views render once before comparing.
        const fresh = viewOver(state, clock, infoKeysOf(ts));
        await fresh.render('text');
        await live.render('text');
        const [liveText, liveOm] = await bodies(live);
        const [freshText, freshOm] = await bodies(fresh);
        expect(liveText).toBe(freshText);
        expect(liveOm).toBe(freshOm);
        compared++;
      }
    }
    expect(compared).toBe(12);
    // The run went through what it is about.
    const [text] = await bodies(live);
    expect(text).not.toContain(SECRET);
    expect(text).toMatch(/ledger_exporter_upstream_dropped_samples\{node="[^"]+",reason="secret"\} [1-9]/);
    expect(text).toMatch(/ledger_exporter_upstream_dropped_samples\{node="[^"]+",reason="conflict"\} [1-9]/);
    expect(text).toMatch(/ledger_probe_backoff\{[^}]+\} 1/);
    expect(text).toContain('ledger_upstream_txs');
  });

  it('forgets a removed node and does not reuse its lines when a node of that name returns', async () => {
    const clock = { now: 1_700_000_000_000 };
    const a = target('a', { probes: ['health', 'metrics'] });
    const state = new FleetState([a, target('b', { probes: ['health', 'metrics'] })]);
    const live = viewOver(state, clock, []);
    const answer = (v: number): ProbeResult => ({
      kind: 'ok',
      probe: 'metrics',
      startedAt: clock.now,
      durationMs: 1,
      data: { probe: 'metrics', value: [{ name: 'g', type: 'gauge', samples: [{ name: 'g', labels: {}, value: v }] }] },
    });
    state.apply('a', answer(1));
    live.noteResult(state.get('a')!);
    expect((await live.render('text')).body.toString()).toContain('ledger_upstream_g{node="a",network="mainnet"} 1');
    state.setTargets([target('b', { probes: ['health', 'metrics'] })]);
    expect((await live.render('text')).body.toString()).not.toContain('node="a"');
    // Back on another network: its first answer must carry the new network, never the old lines.
    state.setTargets([{ ...a, network: 'testnet' }, target('b', { probes: ['health', 'metrics'] })]);
    state.apply('a', answer(1));
    live.noteResult(state.get('a')!);
    const body = (await live.render('text')).body.toString();
    expect(body).toContain('ledger_upstream_g{node="a",network="testnet"} 1');
    expect(body).not.toContain('ledger_upstream_g{node="a",network="mainnet"}');
  });
});
