// A probe's backoff ends by the clock alone, with no new result: the scrape must show
// ledger_probe_backoff 0 from then on, although the node's lines were built while it was 1 and
// its state (revision) did not change since. Real FleetState, snapshot and view; injected clock.
import { describe, expect, it } from 'vitest';
import type { ProbeResult } from '../../src/domain.js';
import { MetricsView, type ExporterCounters } from '../../src/metrics/view.js';
import { FleetState } from '../../src/state/fleetState.js';
import { buildSnapshot } from '../../src/state/snapshot.js';
import { target } from '../support/targets.js';

const counters: ExporterCounters = { configReloads: { success: 0, failure: 0 }, pollOverruns: new Map() };

describe('probe backoff at the scrape', () => {
  it('turns 0 when the backoff time passes, on every later scrape, without a new result', async () => {
    const clock = { now: 1_700_000_000_000 };
    const state = new FleetState([target('n1', { probes: ['health'], intervalMs: 1000 })], {
      after: 1,
      maxFactor: 8,
      jitter: 0,
      random: () => 0,
    });
    const view = new MetricsView(
      { version: '1.0.0', infoLabelKeys: [], defaultMetrics: false },
      () => ({ snapshot: buildSnapshot(state.nodes(), {}, clock.now), upstream: [], counters }),
      () => undefined,
    );
    const backoff = async () => {
      const text = (await view.render('text')).body.toString();
      const line = text.split('\n').find((l) => l.startsWith('ledger_probe_backoff{node="n1"'));
      expect(line).toBeDefined();
      return Number(line!.split(' ').pop());
    };
    const failed: ProbeResult = {
      kind: 'failed',
      probe: 'health',
      startedAt: clock.now,
      durationMs: 5,
      reason: 'timeout',
      message: 'timed out',
    };
    state.apply('n1', failed);
    view.noteResult(state.get('n1')!);
    view.buildChanged(clock.now);
    expect(await backoff()).toBe(1);
    expect(await backoff()).toBe(1);
    const notBefore = state.get('n1')!.probes.get('health')!.notBefore!;
    expect(notBefore).toBeGreaterThan(clock.now);
    clock.now = notBefore + 1;
    expect(await backoff()).toBe(0);
    expect(await backoff()).toBe(0);
  });
});
