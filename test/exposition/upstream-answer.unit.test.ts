// What a node keeps of its /metrics answer: once the upstream view has prepared the node's lines,
// the parsed families are released and the lines alone serve every scrape, secret counts
// included. A reload that changes the node's labels keeps the lines (they carry only node and
// network); one that changes its network makes a new node, which shows no lines until its next
// answer and then only lines of the new network.
import { describe, expect, it } from 'vitest';
import type { MetricFamily, ProbeResult } from '../../src/domain.js';
import {
  FleetUpstream,
  parseExposition,
  prepareUpstream,
  renderUpstream,
  renderUpstreamWithStats,
  type UpstreamNode,
} from '../../src/exposition/index.js';
import { FleetState } from '../../src/state/fleetState.js';
import { target } from '../support/targets.js';

const SECRET = 'sekret-9';
const scrub = (text: string) => text.split(SECRET).join('[redacted]');

const answer = (height: number): MetricFamily[] =>
  parseExposition(`# HELP h Height\n# TYPE h gauge\nh ${height}\necho{auth="${SECRET}"} 1\necho{auth="none"} 2\n`)
    .families;

const ok = (families: MetricFamily[]): ProbeResult => ({
  kind: 'ok',
  probe: 'metrics',
  startedAt: 1_000,
  durationMs: 2,
  data: { probe: 'metrics', value: families },
});

function setup() {
  const state = new FleetState([target('n1', { probes: ['metrics'], labels: { zone: 'a' } })]);
  const upstream = new FleetUpstream(() => state.nodes(), { scrub });
  const scrape = () => renderUpstream(upstream.sources(), { openMetrics: false });
  const result = (families: MetricFamily[]) => {
    state.apply('n1', ok(families));
    upstream.prepare(state.get('n1')!);
  };
  return { state, upstream, scrape, result };
}

describe("a node's upstream answer", () => {
  it('releases the parsed families once the lines are prepared; the lines serve every scrape', () => {
    const { state, scrape, result } = setup();
    result(answer(7));
    const kept = state.get('n1')!.upstream!;
    expect(kept.families).toBeUndefined();
    expect(kept.prepared?.droppedSecretSamples).toBe(1);
    const text = scrape();
    expect(text).toContain('ledger_upstream_h{node="n1",network="mainnet"} 7\n');
    expect(text).toContain('ledger_upstream_echo{node="n1",network="mainnet",auth="none"} 2\n');
    expect(text).not.toContain(SECRET);
    expect(scrape()).toBe(text);
    result(answer(8));
    expect(scrape()).toContain('ledger_upstream_h{node="n1",network="mainnet"} 8\n');
  });

  it('keeps the lines across a reload that changes only the labels', () => {
    const { state, scrape, result } = setup();
    result(answer(7));
    const before = scrape();
    state.setTargets([target('n1', { probes: ['metrics'], labels: { zone: 'b', tier: 'x' } })]);
    expect(scrape()).toBe(before);
  });

  it('shows no lines of the old network after a reload that changes it, and the new network at the next answer', () => {
    const { state, scrape, result } = setup();
    result(answer(7));
    state.setTargets([target('n1', { probes: ['metrics'], network: 'testnet' })]);
    expect(scrape()).toBe('');
    result(answer(9));
    expect(scrape()).toContain('ledger_upstream_h{node="n1",network="testnet"} 9\n');
    expect(scrape()).not.toContain('mainnet');
  });

  it('never re-labels released lines: a new network under the same answer waits for the next', () => {
    const node: UpstreamNode = {
      target: { name: 'n1', network: 'mainnet' },
      upstream: { families: answer(7), prepared: undefined },
    };
    const upstream = new FleetUpstream(() => [node], { scrub });
    expect(renderUpstream(upstream.sources(), { openMetrics: false })).toContain('network="mainnet"');
    node.target = { name: 'n1', network: 'testnet' };
    expect(renderUpstream(upstream.sources(), { openMetrics: false })).toBe('');
    node.upstream = { families: answer(8), prepared: undefined };
    expect(renderUpstream(upstream.sources(), { openMetrics: false })).toContain(
      'ledger_upstream_h{node="n1",network="testnet"} 8\n',
    );
  });

  it("counts the sample lines of a family a conflict leaves out, wherever it sits in the node's lines", () => {
    const a = prepareUpstream('a', 'net', parseExposition('# TYPE x gauge\nx 1\n').families);
    const b = prepareUpstream(
      'b',
      'net',
      parseExposition(
        '# TYPE w gauge\nw 1\n# TYPE x counter\nx{v="line\\nbreak"} 2\nx{v="2"} 3\nx{v="3"} 4\n# TYPE y gauge\ny 5\n',
      ).families,
    );
    const r = renderUpstreamWithStats([a, b], { openMetrics: false });
    expect(r.conflicts.map((c) => [c.node, c.family, c.samples])).toEqual([['b', 'ledger_upstream_x', 3]]);
    expect(r.text).toContain('ledger_upstream_y{node="b",network="net"} 5\n');
    expect(r.text).not.toContain('node="b",network="net",v=');
  });
});
