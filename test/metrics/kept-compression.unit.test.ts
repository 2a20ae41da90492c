// A gzip scrape splices in the compressed form of per-node blocks that did not change since the
// scrape before, instead of writing and compressing them again. What a client reads back must
// always be the exposition, exactly: after nodes changed, in either format, and after the lines
// were rebuilt.
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { ProbeResult } from '../../src/domain.js';
import { MetricsView, type RenderedMetrics } from '../../src/metrics/view.js';
import { FleetState } from '../../src/state/fleetState.js';
import { buildSnapshot } from '../../src/state/snapshot.js';
import { target } from '../support/targets.js';

/** Several runs of 64 nodes: a family's block spans them all. */
const NODES = 300;

const health = (height: number): ProbeResult => ({
  kind: 'ok',
  probe: 'health',
  startedAt: 1_700_000_000_000,
  durationMs: 12,
  data: {
    probe: 'health',
    value: { status: 'ok', version: '0.5.8', chainId: 'claw-mainnet', height, peerCount: 8, epoch: 5 },
  },
  namespace: 'claw',
});

function setup() {
  const names = Array.from({ length: NODES }, (_, i) => `node-${i}`);
  const state = new FleetState(names.map((n) => target(n, { probes: ['health'] })));
  for (const n of names) state.apply(n, health(1_000));
  const view = new MetricsView(
    { version: '9.9.9', infoLabelKeys: [], defaultMetrics: false },
    () => ({
      snapshot: buildSnapshot(state.nodes(), {}, 1_700_000_001_000),
      upstream: [],
      counters: { configReloads: { success: 0, failure: 0 }, pollOverruns: new Map() },
    }),
    () => undefined,
  );
  return { state, view, names };
}

/**
 * One gzip scrape: what the gzip member reads back as, the bytes whose compression was reused,
 * and the exposition a plain scrape of the same state gives (a gzip render's body leaves the
 * reused blocks out).
 */
async function scrape(
  view: MetricsView,
  format: 'text' | 'openmetrics' = 'text',
): Promise<{ body: string; unzipped: string; reused: number }> {
  const r: RenderedMetrics = await view.render(format, { gzip: true });
  const unzipped = gunzipSync(await r.gzipped!).toString();
  const reused = r.reusedBytes ?? -1;
  expect(r.body.length + reused).toBe(Buffer.byteLength(unzipped));
  r.release();
  const plain = await view.render(format);
  const body = plain.body.toString();
  plain.release();
  return { body, unzipped, reused };
}

describe('kept compression of /metrics blocks', () => {
  it('reuses the unchanged blocks from the third scrape on and always reads back the body', async () => {
    const { state, view } = setup();
    const first = await scrape(view);
    expect(first.unzipped).toBe(first.body);
    expect(first.reused).toBe(0); // nothing seen before
    const second = await scrape(view);
    expect(second.unzipped).toBe(second.body);
    expect(second.reused).toBe(0); // unchanged blocks are compressed apart now, to be kept
    const third = await scrape(view);
    expect(third.unzipped).toBe(third.body);
    expect(third.body).toBe(first.body);
    // Every per-node family, headers included; the per-network lines after them are not kept.
    expect(third.reused).toBeGreaterThan(0.9 * third.body.length);
    expect(third.reused).toBeLessThan(third.body.length);

    // One node moves on: the families of its changed lines (and the others' height lag) are compressed anew, the rest
    // reused.
    state.apply('node-150', health(1_007));
    const fourth = await scrape(view);
    expect(fourth.unzipped).toBe(fourth.body);
    expect(fourth.body).toContain('ledger_node_block_height{node="node-150",network="mainnet"} 1007\n');
    expect(fourth.body).toContain('ledger_node_height_lag_blocks{node="node-0",network="mainnet"} 7\n');
    expect(fourth.reused).toBeGreaterThan(0.3 * fourth.body.length);
    expect(fourth.reused).toBeLessThan(third.reused);
  });

  it('keeps each format apart (their family headers differ) and starts over when the lines are rebuilt', async () => {
    const { state, view, names } = setup();
    for (let i = 0; i < 3; i++) await scrape(view);
    const om = await scrape(view, 'openmetrics');
    expect(om.unzipped).toBe(om.body);
    expect(om.body.endsWith('# EOF\n')).toBe(true);
    expect(om.reused).toBe(0);
    await scrape(view, 'openmetrics');
    const omAgain = await scrape(view, 'openmetrics');
    expect(omAgain.unzipped).toBe(omAgain.body);
    expect(omAgain.reused).toBeGreaterThan(0.9 * omAgain.body.length);
    const text = await scrape(view);
    expect(text.unzipped).toBe(text.body);
    expect(text.reused).toBeGreaterThan(0.9 * text.body.length);

    // A node removed by a reload: every run of lines is rebuilt (the runs shift), nothing kept applies.
    state.setTargets(names.slice(1).map((n) => target(n, { probes: ['health'] })));
    const rebuilt = await scrape(view);
    expect(rebuilt.unzipped).toBe(rebuilt.body);
    expect(rebuilt.reused).toBe(0);
    expect(rebuilt.body).not.toContain('node="node-0"');
    expect(rebuilt.body).toContain('ledger_node_up{node="node-1",network="mainnet"} 1\n');
  });

  it('never touches a scrape without gzip', async () => {
    const { view } = setup();
    for (let i = 0; i < 3; i++) {
      const r = await view.render('text');
      expect(r.gzipped).toBeUndefined();
      expect(r.reusedBytes).toBeUndefined();
      r.release();
    }
    // Plain scrapes record nothing: the first gzip scrapes start from nothing.
    expect((await scrape(view)).reused).toBe(0);
    expect((await scrape(view)).reused).toBe(0);
    expect((await scrape(view)).reused).toBeGreaterThan(0);
  });
});
