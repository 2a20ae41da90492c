// The merge of every node's upstream families is decided once and reused while each node sends
// the families of the same plan under the same name, in the same order: values alone changing
// must give the same bytes as a merge made afresh, and any other change must make a new merge.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import {
  FleetUpstream,
  parseExposition,
  renderUpstreamWithStats,
  type PreparedUpstream,
  type UpstreamNode,
} from '../../src/exposition/index.js';
import { planUpstream, type UpstreamPlan } from '../../src/exposition/plan.js';
import { preparedFromPlan } from '../../src/exposition/upstream.js';
import { mergeLayout, writeMerged, type MergeLayout } from '../../src/exposition/upstreamMerge.js';

const planOf = (text: string): UpstreamPlan =>
  planUpstream(parseExposition(text).families, undefined, { prefix: 'ledger_upstream_' });

const HEIGHTS = planOf('# HELP h Height\n# TYPE h gauge\nh 1\n# TYPE x gauge\nx{k="a"} 1\nx{k="b"} 2\n');
/** Declares x a counter: a type mismatch with HEIGHTS, so its x lines are left out. */
const CLASH = planOf('# TYPE x counter\nx{k="c"} 1\nx{k="d"} 1\n# TYPE p gauge\np 1\n');
const OTHER = planOf('# TYPE q gauge\nq 1\n');

const node = (name: string, plan: UpstreamPlan, base: number): PreparedUpstream =>
  preparedFromPlan(
    plan,
    name,
    'net',
    Array.from({ length: plan.sources.length }, (_, i) => base + i),
  );

function merged(layout: MergeLayout, sources: PreparedUpstream[]): string {
  let text = '';
  writeMerged(layout, sources, {
    openMetrics: false,
    write: (p) => void (text += p),
    writeRange: (b, s, e) => void (text += b.toString('utf8', s, e)),
  });
  return text;
}

describe('the upstream merge layout', () => {
  it('is reused while only values change, and writes what a fresh merge writes', () => {
    const first = [node('a', HEIGHTS, 10), node('b', CLASH, 20)];
    const layout = mergeLayout(first);
    expect(layout.conflicts.map((c) => [c.node, c.family, c.reason, c.samples])).toEqual([
      ['b', 'ledger_upstream_x', 'type_mismatch', 2],
    ]);
    const next = [node('a', HEIGHTS, 70), node('b', CLASH, 80)];
    expect(mergeLayout(next, layout)).toBe(layout);
    const fresh = renderUpstreamWithStats(next, { openMetrics: false });
    expect(merged(layout, next)).toBe(fresh.text);
    expect(fresh.text).toContain('ledger_upstream_h{node="a",network="net"} 70\n');
    expect(fresh.text).toContain('ledger_upstream_p{node="b",network="net"} 82\n');
    expect(fresh.text).not.toContain('k="c"');
    expect(fresh.conflicts).toEqual(layout.conflicts);
  });

  it('is made anew when a node sends another plan, is renamed, added, removed or moved', () => {
    const base = [node('a', HEIGHTS, 1), node('b', CLASH, 2)];
    const layout = mergeLayout(base);
    const changes: PreparedUpstream[][] = [
      [node('a', HEIGHTS, 1), node('b', OTHER, 2)],
      [node('a', HEIGHTS, 1), node('c', CLASH, 2)],
      [node('a', HEIGHTS, 1), node('b', CLASH, 2), node('c', OTHER, 3)],
      [node('a', HEIGHTS, 1)],
      [node('b', CLASH, 2), node('a', HEIGHTS, 1)],
    ];
    for (const sources of changes) {
      const next = mergeLayout(sources, layout);
      expect(next).not.toBe(layout);
      expect(merged(next, sources)).toBe(renderUpstreamWithStats(sources, { openMetrics: false }).text);
    }
    // Moved: b comes first and keeps x as a counter; a's gauge x is the conflict now.
    expect(mergeLayout(changes[4]!, layout).conflicts.map((c) => [c.node, c.family])).toEqual([
      ['a', 'ledger_upstream_x'],
    ]);
    // Another plan: no clash left.
    expect(mergeLayout(changes[0]!, layout).conflicts).toEqual([]);
  });

  it("keeps the nodes' conflict counts across reused scrapes and updates them as the merge changes", async () => {
    const nodes: UpstreamNode[] = [
      { target: { name: 'a', network: 'net' }, upstream: { families: undefined, prepared: node('a', HEIGHTS, 1) } },
      { target: { name: 'b', network: 'net' }, upstream: { families: undefined, prepared: node('b', CLASH, 1) } },
    ];
    const upstream = new FleetUpstream(() => nodes);
    const conflictSamples = async (): Promise<string[]> => {
      const registry = new Registry();
      upstream.collectors(registry);
      return (await registry.metrics()).split('\n').filter((l) => l.includes('reason="conflict"'));
    };
    const scrape = () => {
      let text = '';
      upstream.write(upstream.sources(), false, {
        write: (p) => void (text += p),
        writeRange: (b, s, e) => void (text += b.toString('utf8', s, e)),
      });
      return text;
    };
    scrape();
    expect(await conflictSamples()).toEqual(['ledger_exporter_upstream_dropped_samples{node="b",reason="conflict"} 2']);
    nodes[1]!.upstream!.prepared = node('b', CLASH, 5);
    expect(scrape()).toContain('ledger_upstream_p{node="b",network="net"} 7\n');
    expect(await conflictSamples()).toEqual(['ledger_exporter_upstream_dropped_samples{node="b",reason="conflict"} 2']);
    nodes[1]!.upstream!.prepared = node('b', OTHER, 5);
    expect(scrape()).toContain('ledger_upstream_q{node="b",network="net"} 5\n');
    expect(await conflictSamples()).toEqual([]);
  });
});
