// A reload that takes probes off a node takes their values with them: the node's height then
// comes from the probes it still runs, and /metrics and the status board stop showing what the
// removed probes last said. Real HTTP to a simulated node, its chain moved by a manual clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeTarget, ProbeName } from '../../src/domain.js';
import { FleetUpstream } from '../../src/exposition/index.js';
import { HttpClient } from '../../src/http/client.js';
import { createDispatcher } from '../../src/http/dispatcher.js';
import { MetricsView } from '../../src/metrics/view.js';
import { NodeProber } from '../../src/probe/prober.js';
import { Secrets } from '../../src/redact.js';
import { SimFleet } from '../../src/sim/index.js';
import { FleetState } from '../../src/state/fleetState.js';
import { buildSnapshot } from '../../src/state/snapshot.js';
import { StatusBoard } from '../../src/status/board.js';
import { manualClock } from '../sim/helpers.js';
import { target } from '../support/targets.js';

const clock = manualClock();
const dispatcher = createDispatcher();
const client = new HttpClient({ dispatcher, secrets: new Secrets() });
let fleet: SimFleet;

beforeAll(async () => {
  fleet = await SimFleet.start([{ name: 'cur', build: 'current', peers: 5 }], { blockTimeMs: 3_000, now: clock.now });
});
afterAll(async () => {
  await client.close();
  await dispatcher.close();
  await fleet.close();
});

const noBackoff = { after: 1000, maxFactor: 1, jitter: 0, random: () => 0 };
const counters = { configReloads: { success: 0, failure: 0 }, pollOverruns: new Map() };

describe('a probe removed by a reload', () => {
  it('leaves no value behind: height from blockNumber, no health, validators or upstream lines', async () => {
    const all: NodeTarget = target('cur', { url: fleet.node('cur').url, timeoutMs: 2_000 });
    const state = new FleetState([all], noBackoff);
    const upstream = new FleetUpstream(() => state.nodes());
    const view = new MetricsView(
      { version: 't', infoLabelKeys: [], defaultMetrics: false, extensions: [(r) => upstream.collectors(r)] },
      () => ({ snapshot: buildSnapshot(state.nodes(), {}, clock.now()), upstream: upstream.sources(), counters }),
      (sources, om, out) => upstream.write(sources, om, out),
      (node) => upstream.prepare(node),
    );
    const board = new StatusBoard({ now: clock.now });
    const scrape = async () => (await view.render('text')).body.toString().split('\n');
    const poll = async (t: NodeTarget, probes: readonly ProbeName[]) => {
      const prober = new NodeProber(t, { client, maxResponseBytes: 1 << 20, maxUpstreamSeries: 500, now: clock.now });
      for (const p of probes) {
        state.apply('cur', await prober.run(p));
        view.noteResult(state.get('cur')!);
      }
      board.update(state);
    };

    await poll(all, all.probes);
    const before = fleet.node('cur').height();
    let lines = await scrape();
    expect(lines).toContain(`ledger_node_block_height{node="cur",network="mainnet"} ${before}`);
    expect(lines).toContain('ledger_node_peers{node="cur",network="mainnet"} 5');
    expect(lines.some((l) => l.startsWith('ledger_node_validators{node="cur"'))).toBe(true);
    expect(lines.some((l) => l.startsWith('ledger_upstream_'))).toBe(true);
    expect(board.node('cur')).toMatchObject({ height: before, peers: 5 });

    // 100 blocks later, the node is polled by blockNumber alone.
    clock.advance(300_000);
    const only: NodeTarget = { ...all, probes: ['blockNumber'] };
    state.setTargets([only]);
    await poll(only, only.probes);
    const after = fleet.node('cur').height();
    expect(after).toBe(before + 100);

    const node = buildSnapshot(state.nodes(), {}, clock.now()).nodes[0]!;
    expect(node).toMatchObject({
      up: true,
      height: after,
      health: undefined,
      validatorsCount: undefined,
      minersActive: undefined,
    });
    expect(node.values).toMatchObject({
      health: undefined,
      validators: undefined,
      mining: undefined,
      upstream: undefined,
    });
    lines = await scrape();
    expect(lines).toContain(`ledger_node_block_height{node="cur",network="mainnet"} ${after}`);
    for (const gone of [
      'ledger_node_peers{',
      'ledger_node_healthy{',
      'ledger_node_validators{',
      'ledger_node_miners_active{',
      'ledger_validators_active{',
      'ledger_upstream_',
    ]) {
      expect(
        lines.filter((l) => l.startsWith(gone)),
        gone,
      ).toEqual([]);
    }
    expect(board.node('cur')).toMatchObject({ status: 'up', height: after, peers: undefined, version: undefined });
  });
});
