// A render may write into the memory of an earlier body, but only one its reader released: a
// body still held (sent uncompressed, being compressed) must never change under its reader.
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { GZIP_PIECE_BYTES } from '../../src/metrics/gzip.js';
import type { ProbeResult } from '../../src/domain.js';
import { MetricsView, type ExporterCounters } from '../../src/metrics/view.js';
import { FleetState } from '../../src/state/fleetState.js';
import { buildSnapshot } from '../../src/state/snapshot.js';
import { target } from '../support/targets.js';

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
      const r: ProbeResult = {
        kind: 'ok',
        probe: 'health',
        startedAt: 1_700_000_000_000,
        durationMs: 1,
        data: { probe: 'health', value: { status: 'ok', height } },
      };
      state.apply(n.target.name, r);
      view.noteResult(n);
    }
    view.buildChanged(1_700_000_000_000);
  };
  return { view, state, advance, height: () => height };
}

describe('/metrics body memory', () => {
  it('never writes into a body that was not released', async () => {
    const { view, advance, height } = setup();
    advance();
    const first = await view.render('text');
    const copy = Buffer.from(first.body);
    expect(copy.toString()).toContain(`ledger_node_block_height{node="node-0",network="mainnet"} ${height()}`);
    for (let i = 0; i < 3; i++) {
      advance();
      (await view.render('text')).release();
    }
    expect(first.body.equals(copy)).toBe(true);
  });

  it('reuses released memory once, and a second release of the same body hands out nothing', async () => {
    const { view, advance, height } = setup();
    advance();
    const a = await view.render('text');
    a.release();
    advance();
    const b = await view.render('openmetrics');
    // b was written where a was.
    expect(b.body.buffer).toBe(a.body.buffer);
    const bCopy = Buffer.from(b.body);
    expect(bCopy.toString()).toContain(`ledger_node_block_height{node="node-0",network="mainnet"} ${height()}`);
    a.release(); // too late and a second time: must not free b's memory
    advance();
    const c = await view.render('text');
    expect(c.body.buffer).not.toBe(b.body.buffer);
    expect(b.body.equals(bCopy)).toBe(true);
    expect(c.body.toString()).toContain(`ledger_node_block_height{node="node-0",network="mainnet"} ${height()}`);
  });

  it('does not keep a large released body for a fleet that shrank', async () => {
    const { view, state, advance } = setup(2000);
    advance();
    const big = await view.render('text');
    const bigBytes = big.body.buffer.byteLength;
    big.release();
    state.setTargets(targets(3));
    advance();
    const small = await view.render('text');
    small.release();
    advance();
    // The 3-node body fits a few KB: the 2,000-node memory is dropped, not rewritten for ever.
    const next = await view.render('text');
    expect(next.body.buffer).not.toBe(big.body.buffer);
    expect(next.body.length * 20).toBeLessThan(bigBytes);
    expect(next.body.buffer.byteLength * 10).toBeLessThan(bigBytes);
  });

  it('drops memory grown far past the body it held, and keeps memory sized for the body', async () => {
    const { view, advance } = setup(600);
    advance();
    // The first render has no size to go by: its memory doubled from 64 KB past the body.
    const a = await view.render('text');
    expect(a.body.buffer.byteLength).toBeGreaterThan(1.5 * a.body.length + 64 * 1024);
    a.release();
    advance();
    const b = await view.render('text');
    expect(b.body.buffer).not.toBe(a.body.buffer);
    expect(b.body.buffer.byteLength).toBeLessThan(1.25 * b.body.length);
    b.release();
    advance();
    const c = await view.render('text');
    expect(c.body.buffer).toBe(b.body.buffer);
  });

  it('writes plain and gzip scrapes into one memory, though a gzip body leaves out the blocks it reuses', async () => {
    const { view, advance } = setup(600);
    for (let i = 0; i < 2; i++) {
      advance();
      (await view.render('text')).release(); // the first grows by doubling and is dropped; the second is sized
    }
    advance();
    const sized = await view.render('text');
    const memory = sized.body.buffer;
    sized.release();
    const seen: ArrayBufferLike[] = [];
    let smallest = Infinity;
    for (let i = 0; i < 8; i++) {
      advance();
      const r = await view.render('text', { gzip: i % 2 === 0 });
      if (r.gzipped) {
        expect(gunzipSync(await r.gzipped).length).toBe(r.body.length + r.reusedBytes!);
        smallest = Math.min(smallest, r.body.length);
      }
      seen.push(r.body.buffer);
      r.release();
    }
    // Far smaller than the memory: a rule by the body's own size would drop it after each gzip scrape.
    expect(smallest * 1.5 + 64 * 1024).toBeLessThan(memory.byteLength);
    // (identity, not toBe: a failing toBe diffs the two buffers' bytes for minutes)
    expect(seen.map((m) => m === memory)).toEqual(seen.map(() => true));
  });

  it('stops keeping memory sized for plain bodies once only gzip scrapes come', async () => {
    const { view, advance } = setup(600);
    for (let i = 0; i < 3; i++) {
      advance();
      (await view.render('text')).release();
    }
    advance();
    const sized = await view.render('text');
    const memory = sized.body.buffer;
    sized.release();
    const seen: ArrayBufferLike[] = [];
    for (let i = 0; i < 14; i++) {
      advance();
      const r = await view.render('text', { gzip: true });
      await r.gzipped;
      seen.push(r.body.buffer);
      r.release();
    }
    // Shared while the plain scrape is recent, then memory sized for the (smaller) gzip bodies.
    expect(seen.slice(0, 4).every((m) => m === memory)).toBe(true);
    const last = seen.at(-1)!;
    expect(last === memory).toBe(false);
    expect(last.byteLength).toBeLessThan(0.75 * memory.byteLength);
  });

  it('compresses a body of several pieces while writing it, and its memory is reused only once released', async () => {
    const { view, advance } = setup(30_000);
    advance();
    const a = await view.render('text', { gzip: true });
    expect(a.body.length).toBeGreaterThan(2 * GZIP_PIECE_BYTES);
    const zipped = await a.gzipped!;
    expect(gunzipSync(zipped).equals(a.body)).toBe(true);
    a.release();
    advance();
    const b = await view.render('openmetrics', { gzip: true });
    expect(b.body.buffer).toBe(a.body.buffer);
    expect(gunzipSync(await b.gzipped!).equals(b.body)).toBe(true);
    expect((await view.render('text')).gzipped).toBeUndefined();
  });
});
