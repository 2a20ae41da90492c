// A body handed out (being sent uncompressed, being compressed) must never change under its
// reader, and a gzip body compressed while it was written must read back exactly.
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { GZIP_PIECE_BYTES } from '../src/metrics/gzip.js';
import type { ProbeResult } from '../src/domain.js';
import { MetricsView, type ExporterCounters } from '../src/metrics/view.js';
import { FleetState } from '../src/state/fleetState.js';
import { buildSnapshot } from '../src/state/snapshot.js';
import { target } from './support/targets.js';

const counters: ExporterCounters = { configReloads: { success: 0, failure: 0 }, pollOverruns: new Map() };

const targets = (count: number) => Array.from({ length: count }, (_, i) => target(`node-${i}`, { probes: ['health'] }));

function setup(count = 30) {
  const state = new FleetState(targets(count));
  const view = new MetricsView(
    { version: '1.0.0', infoLabelKeys: [], defaultMetrics: false },
    () => ({ snapshot: buildSnapshot(state.nodes(), {}, 1_700_000_000_000), upstream: [], counters }),
    () => undefined,
  );
  let height = 100;
  /** Every node answers at a new height: the next body differs from the last in every node's lines. */
  const advance = () => {
    height += 1000;
    for (const n of state.nodes()) {
      const r: ProbeResult = { kind: 'ok', probe: 'health', startedAt: 1_700_000_000_000, durationMs: 1, data: { probe: 'health', value: { status: 'ok', height } } };
      state.apply(n.target.name, r);
      view.noteResult(n);
    }
    view.buildChanged(1_700_000_000_000);
  };
  return { view, state, advance, height: () => height };
}

describe('/metrics body memory', () => {
  it('never writes into a body it handed out: each render writes new memory', async () => {
    const { view, advance, height } = setup();
    advance();
    const first = await view.render('text');
    const copy = Buffer.from(first.body);
    expect(copy.toString()).toContain(`ledger_node_block_height{node="node-0",network="mainnet"} ${height()}`);
    const later = [];
    for (let i = 0; i < 3; i++) {
      advance();
      later.push(await view.render(i % 2 ? 'openmetrics' : 'text', { gzip: i === 0 }));
    }
    expect(first.body.equals(copy)).toBe(true);
    for (const r of later) expect(r.body.buffer).not.toBe(first.body.buffer);
    expect(later[2]!.body.toString()).toContain(`ledger_node_block_height{node="node-0",network="mainnet"} ${height()}`);
  });

  it('compresses a body of several pieces while writing it, into one gzip member of exactly the body', async () => {
    const { view, advance } = setup(30_000);
    advance();
    const a = await view.render('text', { gzip: true });
    expect(a.body.length).toBeGreaterThan(2 * GZIP_PIECE_BYTES);
    expect(gunzipSync(await a.gzipped!).equals(a.body)).toBe(true);
    advance();
    const b = await view.render('openmetrics', { gzip: true });
    expect(gunzipSync(await b.gzipped!).equals(b.body)).toBe(true);
    expect(b.body.toString().endsWith('# EOF\n')).toBe(true);
    expect((await view.render('text')).gzipped).toBeUndefined();
  });
});
