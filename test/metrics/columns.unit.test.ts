// The per-node lines kept between scrapes (FleetColumns, in runs of SEGMENT_NODES nodes) must
// write what columns built from scratch write, byte for byte, after any sequence of node changes:
// new revisions whose lines grow and shrink (moving the rest of a run, growing its buffers),
// height lag and backoff changing without a new revision, rewrites between scrapes from views
// without lag (as the view's batch does), nodes removed, added and reordered, info keys changed,
// and non-ASCII label values (byte offsets differ from string offsets). Only the families whose
// values changed are written again, so small edits (one value, a failure counter grown in place,
// a version, a network) must reach the lines too.
import { describe, expect, it } from 'vitest';
import { FAILURE_REASONS, type NodeView, type ProbeName, type ProbeView } from '../../src/domain.js';
import { ByteWriter } from '../../src/metrics/byteWriter.js';
import { FleetColumns } from '../../src/metrics/fleetColumns.js';
import { writeFleet } from '../../src/metrics/fleetText.js';
import { SEGMENT_NODES } from '../../src/metrics/segment.js';
import { ShownValues, valuePlan } from '../../src/metrics/shownValues.js';
import { fleetLayout } from '../../src/metrics/fleetFamilies.js';
import { nodeProbes } from '../../src/probes/registry.js';

/** A small deterministic generator (tests must not depend on Math.random). */
function rng(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s % n;
  };
}

let revision = 0;
const PROBES: ProbeName[] = ['health', 'metrics', 'blockNumber', 'validators'];

/** A node's view at a new revision; values of very different lengths so lines grow and shrink. */
function nodeView(pick: (n: number) => number, name: string): NodeView {
  const big = () => (pick(2) ? pick(10) : pick(1_000_000_000));
  const probes: ProbeView[] = PROBES.slice(0, 2 + pick(3)).map((probe) => ({
    probe,
    supported: pick(8) !== 0,
    success: pick(4) === 0 ? undefined : pick(3) !== 0,
    durationSeconds: pick(4) === 0 ? undefined : big() / 1000,
    lastSuccessSeconds: pick(4) === 0 ? undefined : 1_700_000_000 + big(),
    failures: Object.fromEntries(FAILURE_REASONS.map((r) => [r, pick(3) === 0 ? big() : 0])) as ProbeView['failures'],
    consecutiveFailures: big(),
    backingOff: pick(4) === 0,
  }));
  const height = pick(5) === 0 ? undefined : big();
  return {
    name,
    revision: ++revision,
    network: pick(3) === 0 ? 'testnet' : 'mainnet',
    labels: pick(2) ? { region: 'eu', role: 'validator' } : { region: 'zürich "ö"\\', tier: `t${big()}` },
    namespace: pick(2) ? 'claw' : undefined,
    up: pick(4) !== 0,
    health:
      pick(5) === 0
        ? undefined
        : { status: 'ok', version: `0.5.${big()}`, chainId: pick(2) ? 'claw-mainnet' : 'ĉhain', height },
    height,
    validatorsCount: pick(3) === 0 ? undefined : big(),
    minersActive: pick(3) === 0 ? undefined : big(),
    probes,
  };
}

/** The view a snapshot shows at a scrape: the node's view with its lag and current backoff. */
const shown = (v: NodeView, lag: number | undefined, backoff: boolean[]): NodeView => ({
  ...v,
  lagBlocks: lag,
  probes: v.probes.map((p, j) => ({ ...p, backingOff: backoff[j] ?? false })),
});

function render(
  columns: FleetColumns,
  nodes: NodeView[],
  infoLabelKeys: readonly string[],
  openMetrics: boolean,
): string {
  const out = new ByteWriter(1024);
  writeFleet(out, { nodes, networks: [] }, { openMetrics, infoLabelKeys }, columns);
  return out.bytes().toString('utf8');
}

interface Node {
  view: NodeView;
  lag: number | undefined;
  backoff: boolean[];
}

describe('kept per-node lines (FleetColumns)', () => {
  it('write what a from-scratch build writes after changes, removals, additions, reorders and reloads', () => {
    const pick = rng(7);
    let nodes: Node[] = Array.from({ length: 2 * SEGMENT_NODES + 22 }, (_, i) => {
      const view = nodeView(pick, `node-${i}`);
      return { view, lag: pick(50), backoff: view.probes.map((p) => p.backingOff) };
    });
    let infoKeys: readonly string[] = ['region'];
    let added = 0;
    const live = new FleetColumns();
    const kinds = new Set<string>();
    for (let step = 1; step <= 120; step++) {
      for (const n of nodes) {
        const r = pick(10);
        if (r === 0) n.view = nodeView(pick, n.view.name);
        else if (r === 1) n.lag = pick(3) === 0 ? undefined : pick(2) ? pick(9) : pick(1_000_000);
        else if (r === 2) n.backoff = n.backoff.map(() => pick(2) === 0);
        // As the view's batch does between scrapes: a node's new view, without its lag.
        if (r === 0 && pick(2) === 0) live.update(shown(n.view, undefined, n.backoff), infoKeys);
      }
      const event = pick(12);
      if (event === 0 && nodes.length > 1) {
        nodes.splice(pick(nodes.length), 1);
        kinds.add('removed');
      } else if (event === 1) {
        const view = nodeView(pick, `new-${added++}`);
        nodes.splice(pick(nodes.length + 1), 0, { view, lag: pick(9), backoff: view.probes.map(() => false) });
        kinds.add('added');
      } else if (event === 2) {
        const [a, b] = [pick(nodes.length), pick(nodes.length)];
        [nodes[a], nodes[b]] = [nodes[b]!, nodes[a]!];
        kinds.add('reordered');
      } else if (event === 3) {
        infoKeys = pick(2) ? ['region', 'tier'] : [...infoKeys];
        kinds.add('info keys');
      }
      if (step % 3 !== 0) continue;
      const views = nodes.map((n) => shown(n.view, n.lag, n.backoff));
      const om = step % 2 === 0;
      expect(render(live, views, infoKeys, om)).toBe(render(new FleetColumns(), views, infoKeys, om));
    }
    nodes = nodes.slice(0, 5);
    const views = nodes.map((n) => shown(n.view, n.lag, n.backoff));
    expect(render(live, views, infoKeys, false)).toBe(render(new FleetColumns(), views, infoKeys, false));
    expect(live.size).toBe(5);
    // The run went through what it is about.
    expect([...kinds].sort()).toEqual(['added', 'info keys', 'removed', 'reordered']);
  });

  it('keeps each family contiguous across runs of nodes, in node order', () => {
    const pick = rng(3);
    const views = Array.from({ length: SEGMENT_NODES + 5 }, (_, i) => ({
      ...nodeView(pick, `n${i}`),
      up: true,
      lagBlocks: i,
    }));
    const text = render(new FleetColumns(), views, [], false);
    const lines = text.split('\n');
    const upLines = lines.filter((l) => l.startsWith('ledger_node_up{'));
    expect(upLines.map((l) => /node="([^"]+)"/.exec(l)![1])).toEqual(views.map((v) => v.name));
    const first = lines.indexOf(upLines[0]!);
    expect(lines.slice(first, first + upLines.length)).toEqual(upLines);
    const lagLines = lines.filter((l) => l.startsWith('ledger_node_height_lag_blocks{'));
    expect(lagLines.at(-1)).toBe(
      `ledger_node_height_lag_blocks{node="n${SEGMENT_NODES + 4}",network="${views.at(-1)!.network}"} ` +
        `${SEGMENT_NODES + 4}`,
    );
  });

  it('after small edits write what a fresh build writes: value, counters, NaN, version, network, probes', () => {
    const pick = rng(11);
    const nodes = Array.from({ length: SEGMENT_NODES + 9 }, (_, i) => nodeView(pick, `node-${i}`));
    const live = new FleetColumns();
    const infoKeys = ['region'];
    const edits = new Set<string>();
    const edit = (v: NodeView): NodeView => {
      const probes = v.probes.map((p) => ({ ...p }));
      const j = pick(probes.length);
      const next = { ...v, revision: ++revision, probes };
      switch (pick(9)) {
        case 0:
          next.height = pick(2) ? (v.height ?? 0) + 1 : undefined;
          edits.add('height');
          break;
        case 1:
          probes[j]!.durationSeconds = pick(3) === 0 ? Number.NaN : pick(1000) / 1000;
          edits.add('duration');
          break;
        case 2:
          // The state's counters object is shared with earlier views and grows in place.
          probes[j]!.failures[FAILURE_REASONS[pick(FAILURE_REASONS.length)]!]++;
          edits.add('failure counted');
          break;
        case 3:
          probes[j]!.failures = { ...probes[j]!.failures };
          edits.add('counters replaced');
          break;
        case 4:
          next.health = {
            status: 'ok',
            version: `0.6.${pick(3)}`,
            chainId: v.health?.chainId ?? 'claw-mainnet',
            height: v.height,
          };
          edits.add('version');
          break;
        case 5:
          next.network = v.network === 'mainnet' ? 'testnet' : 'mainnet';
          edits.add('network');
          break;
        case 6:
          next.probes = probes.slice(0, Math.max(1, probes.length - 1));
          edits.add('probe list');
          break;
        case 7:
          probes[j]!.success = pick(3) === 0 ? undefined : pick(2) === 0;
          probes[j]!.supported = pick(2) === 0;
          edits.add('success');
          break;
        default:
          next.labels = { ...v.labels, region: `r${pick(3)}` };
          edits.add('labels');
      }
      return next;
    };
    for (let step = 1; step <= 60; step++) {
      nodes.forEach((v, i) => {
        if (pick(3) !== 0) return;
        nodes[i] = edit(v);
        if (pick(2) === 0) live.update(shown(nodes[i], undefined, []), infoKeys);
      });
      const views = nodes.map((v, i) =>
        shown(
          v,
          i % 7,
          v.probes.map((p) => p.backingOff),
        ),
      );
      expect(render(live, views, infoKeys, step % 2 === 0)).toBe(
        render(new FleetColumns(), views, infoKeys, step % 2 === 0),
      );
    }
    expect(edits.size).toBe(9);
  });
});

describe('what kept lines show (ShownValues)', () => {
  const descriptors = nodeProbes();
  const layout = fleetLayout(descriptors);
  const plan = valuePlan(layout.nodeFamilies, descriptors.length);
  const slot = (kind: string) => layout.nodeFamilies.findIndex((f) => f.kind === kind || f.name === kind);
  const base = (): NodeView => nodeView(rng(5), 'n');

  it('says a family changed only when one of its values did', () => {
    const shownValues = new ShownValues(2, plan);
    const v = base();
    const takeAll = (n: NodeView, at = 0) => layout.nodeFamilies.map((f, i) => shownValues.take(at, i, f, n, 3));
    expect(takeAll(v).every(Boolean)).toBe(true); // nothing shown yet
    expect(takeAll({ ...v, revision: ++revision }).some(Boolean)).toBe(false);
    expect(takeAll(v, 1).every(Boolean)).toBe(true); // the other node of the run is apart

    const height = slot('ledger_node_block_height');
    const changed = (n: NodeView) => takeAll(n).flatMap((c, i) => (c ? [layout.nodeFamilies[i]!.name] : []));
    const higher = { ...v, height: (v.height ?? 0) + 1 };
    expect(changed(higher)).toEqual([layout.nodeFamilies[height]!.name]);
    higher.probes[0]!.failures.timeout++;
    expect(changed(higher)).toEqual(['ledger_probe_failures_total']);
    expect(changed({ ...higher, health: { ...higher.health!, status: 'ok', version: 'other' } })).toContain(
      'ledger_node_info',
    );
    shownValues.forget(0);
    expect(takeAll(higher).every(Boolean)).toBe(true);
  });

  it('tells undefined from a number and always rewrites NaN', () => {
    const shownValues = new ShownValues(1, plan);
    const lag = slot('lag');
    const f = layout.nodeFamilies[lag]!;
    const v = base();
    expect(shownValues.take(0, lag, f, v, undefined)).toBe(true);
    expect(shownValues.take(0, lag, f, v, undefined)).toBe(false);
    expect(shownValues.take(0, lag, f, v, 0)).toBe(true);
    expect(shownValues.take(0, lag, f, v, 0)).toBe(false);
    expect(shownValues.take(0, lag, f, v, undefined)).toBe(true);
    expect(shownValues.take(0, lag, f, v, Number.NaN)).toBe(true);
    expect(shownValues.take(0, lag, f, v, Number.NaN)).toBe(true);
  });
});
