// The re-exposed upstream section is cut into blocks (a family's lines of a run of nodes) whose
// stamp changes only when one of their nodes' bytes did, so a gzip scrape splices the kept
// compressed form of the blocks that did not change. A node changing must change the stamps of
// exactly its blocks, and whatever the changes, plain and gzip scrapes must write what a merge
// made afresh writes.
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  FleetUpstream,
  prepareUpstream,
  renderUpstream,
  parseExposition,
  UpstreamReader,
  type PreparedUpstream,
  type UpstreamNode,
} from '../../src/exposition/index.js';
import type { UpstreamAnswer } from '../../src/exposition/upstream.js';
import { BLOCK_NODES, mergeLayout, writeMerged } from '../../src/exposition/upstreamMerge.js';
import { ByteWriter } from '../../src/metrics/byteWriter.js';
import { GzipPieces } from '../../src/metrics/gzip.js';

/** A small deterministic generator (tests must not depend on Math.random). */
function rng(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s % n;
  };
}

/** A node's /metrics: heights, a histogram, a gauge; `extra` adds a family (another shape, another plan). */
function metricsText(height: number, peers: number, opts: { extra?: boolean; txsType?: 'counter' | 'gauge' } = {}) {
  return [
    '# HELP block_height Height',
    '# TYPE block_height gauge',
    `block_height ${height}`,
    '# HELP block_time_seconds Block times',
    '# TYPE block_time_seconds histogram',
    ...[1, 3, 10, '+Inf'].map((le) => `block_time_seconds_bucket{le="${le}"} ${height}`),
    `block_time_seconds_sum ${height * 3}`,
    `block_time_seconds_count ${height}`,
    '# HELP peers Peers',
    '# TYPE peers gauge',
    `peers ${peers}`,
    // Another TYPE on some nodes: a conflict between nodes, left out of the merge.
    `# TYPE txs ${opts.txsType ?? 'counter'}`,
    `txs ${height * 7}`,
    ...(opts.extra ? ['# TYPE zz_extra gauge', 'zz_extra 1'] : []),
    '',
  ].join('\n');
}

interface TestNode extends UpstreamNode {
  /** Reads this node's answers as the prober does: after the first, by the answer's shape. */
  reader: UpstreamReader;
  height: number;
  peers: number;
  extra: boolean;
}

function fleet(count: number): TestNode[] {
  return Array.from({ length: count }, (_, i) => {
    const n: TestNode = {
      target: { name: `node-${String(i).padStart(4, '0')}`, network: i % 3 ? 'mainnet' : 'testnet' },
      reader: new UpstreamReader({}),
      height: 1000 + i,
      peers: 8,
      extra: false,
    };
    n.upstream = answer(n);
    return n;
  });
}

const txsType = (n: TestNode) => (Number(n.target.name.slice(5)) % 97 === 5 ? 'gauge' : 'counter');
const textOf = (n: TestNode) => metricsText(n.height, n.peers, { extra: n.extra, txsType: txsType(n) });

/** The node's answer as the state keeps it. */
function answer(n: TestNode): UpstreamAnswer {
  const read = n.reader.read(textOf(n));
  return { ...read, families: read.families, prepared: undefined };
}

/** A new answer for node `i` of `nodes`, with what `change` set. */
function reanswer(nodes: TestNode[], i: number, change: Partial<Pick<TestNode, 'height' | 'peers' | 'extra'>>): void {
  const n = Object.assign(nodes[i]!, change);
  n.upstream = answer(n);
}

/** The section merged afresh from what each node last answered. */
function freshMerge(nodes: TestNode[], openMetrics: boolean): string {
  const sources = nodes.map((n) =>
    prepareUpstream(n.target.name, n.target.network, parseExposition(textOf(n)).families),
  );
  return renderUpstream(sources, { openMetrics });
}

/** Every block written: key -> stamp. */
function blockStamps(sources: PreparedUpstream[], openMetrics = false): Map<number, number> {
  const stamps = new Map<number, number>();
  writeMerged(mergeLayout(sources), sources, {
    openMetrics,
    write: () => undefined,
    writeRange: () => undefined,
    block: (key, stamp, fill) => {
      stamps.set(key, stamp);
      fill();
    },
  });
  return stamps;
}

/** One scrape of the upstream section as the view writes it: plain, or gzip'd as one member (gunzipped here). */
async function scrape(
  up: FleetUpstream,
  openMetrics: boolean,
  gzip: boolean,
): Promise<{ text: string; reused: number }> {
  const gz = gzip ? new GzipPieces() : undefined;
  const out = new ByteWriter(
    1024,
    undefined,
    gz && { everyBytes: 8 * 1024, take: (p) => gz.add(p), takeCompressed: (p) => gz.addCompressed(p) },
  );
  out.write('# a head of the body\n');
  up.write(up.sources(), openMetrics, out);
  out.write('# a tail of the body\n');
  out.handRest();
  const body = gz ? gunzipSync(await gz.finish()) : out.bytes();
  return { text: body.toString('utf8'), reused: out.reusedBytes };
}

describe('upstream blocks', () => {
  it("a node's new answer keeps the stamps of the families whose bytes are the same", () => {
    const nodes = fleet(3);
    const up = new FleetUpstream(() => nodes);
    const before = [...up.sources()].map((p) => [...p.stamps!]);
    reanswer(nodes, 1, { peers: 9 });
    reanswer(nodes, 2, {});
    const after = [...up.sources()].map((p) => [...p.stamps!]);
    expect(after[0]).toEqual(before[0]);
    // Families in name order: block_height, block_time_seconds, peers, txs.
    expect(after[1]!.map((s, i) => s === before[1]![i])).toEqual([true, true, false, true]);
    expect(after[1]![2]).toBeGreaterThan(before[1]![2]!);
    // An answer with the same bytes keeps every stamp.
    expect(after[2]).toEqual(before[2]);
    // Stamps are new for every family of a node that changed its network (another node for the state).
    nodes[0] = { ...nodes[0]!, target: { name: nodes[0]!.target.name, network: 'othernet' } };
    reanswer(nodes, 0, {});
    const moved = [...up.sources()][0]!.stamps!;
    expect(moved.every((s, i) => s > Math.max(...before.flat()) && s !== after[0]![i])).toBe(true);
  });

  it('a node changing changes the stamps of exactly its blocks', () => {
    const count = 2 * BLOCK_NODES + 40;
    const nodes = fleet(count);
    const up = new FleetUpstream(() => nodes);
    const first = blockStamps([...up.sources()]);
    // block_height, block_time_seconds, peers, txs (its conflicting nodes left out): 3 blocks each.
    expect(first.size).toBe(4 * 3);
    const at = BLOCK_NODES + 7;
    reanswer(nodes, at, { peers: 20 });
    const second = blockStamps([...up.sources()]);
    const changed = (a: Map<number, number>, b: Map<number, number>) =>
      [...b].filter(([k, s]) => a.get(k) !== s).map(([k]) => k >> 1);
    // peers is the third family: its blocks are keys 6, 7, 8; the node is in the second.
    expect(changed(first, second)).toEqual([7]);
    reanswer(nodes, at, { height: 5 });
    const third = blockStamps([...up.sources()]);
    // block_height (1), block_time_seconds (4), txs: node `at` is in txs's second block too.
    expect(changed(second, third)).toEqual([1, 4, 10]);
    // Nothing new: no block changes.
    expect(changed(third, blockStamps([...up.sources()]))).toEqual([]);
  });

  it('a source prepared without stamps makes its blocks count as changed at every scrape', () => {
    const nodes = fleet(2);
    const sources = [...new FleetUpstream(() => nodes).sources()].map((p) => ({ ...p, stamps: undefined }));
    expect([...blockStamps(sources).values()].every(Number.isNaN)).toBe(true);
  });

  for (const [format, openMetrics] of [
    ['text', false],
    ['OpenMetrics', true],
  ] as const) {
    it(`writes what a fresh merge writes, plain and gzip, over random changes (${format})`, async () => {
      const pick = rng(openMetrics ? 7 : 11);
      let nodes = fleet(BLOCK_NODES + 90);
      const up = new FleetUpstream(() => nodes);
      let reused = 0;
      for (let round = 0; round < 24; round++) {
        // A few nodes change per round: heights, peers, a new family (a new layout), a node goes or comes.
        const kind = pick(10);
        if (kind === 0) reanswer(nodes, pick(nodes.length), { extra: true });
        else if (kind === 1 && nodes.length > 10) nodes = nodes.filter((_, i) => i !== pick(nodes.length));
        else if (kind === 2) nodes = [...nodes, ...fleet(nodes.length + 1).slice(-1)];
        for (let k = pick(4); k > 0; k--) reanswer(nodes, pick(nodes.length), { height: 5000 + round * 10 + k });
        if (pick(2) === 0) reanswer(nodes, pick(nodes.length), { peers: pick(30) });
        const expected = `# a head of the body\n${freshMerge(nodes, openMetrics)}# a tail of the body\n`;
        // Plain and gzip scrapes in turn, as Prometheus and a person's curl may.
        const gz = await scrape(up, openMetrics, true);
        expect(gz.text).toBe(expected);
        reused += gz.reused;
        if (round % 3 === 0) expect((await scrape(up, openMetrics, false)).text).toBe(expected);
        const again = await scrape(up, openMetrics, true);
        expect(again.text).toBe(expected);
        reused += again.reused;
      }
      // Kept blocks were spliced (the comparison above then covered them).
      expect(reused).toBeGreaterThan(0);
    });
  }
});
