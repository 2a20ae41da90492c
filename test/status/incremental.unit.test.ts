// The board at fleet scale: a node's status is derived again only when its state, its lag or the
// clock says it may have changed, and the result is what deriving every node every time shows.
// Real FleetState, injected clock, derivations counted through the board's derive hook.
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ProbeName, ProbeResult } from '../../src/domain.js';
import { FleetChanges, FleetState } from '../../src/state/fleetState.js';
import { StatusBoard, type BoardFleet } from '../../src/status/board.js';
import { deriveNodeStatus } from '../../src/status/derive.js';
import { ROUND_SETTLE_MS, StatusService } from '../../src/status/service.js';
import { noBackoff, ok, proxy502 } from '../support/probeResults.js';
import { target } from '../support/targets.js';

const height = (value: number, at: number) => ok({ probe: 'blockNumber', value }, at);
const health = (h: number, at: number) =>
  ok({ probe: 'health', value: { status: 'ok', version: '0.5.8', height: h, lastBlockAgeSecs: 1, peerCount: 4 } }, at);

function fleet(names: string[], probes: ProbeName[]) {
  let now = 1_000_000;
  const state = new FleetState(
    names.map((n) => target(n, { probes, intervalMs: 5000, timeoutMs: 2000 })),
    noBackoff,
  );
  const lines: string[] = [];
  const logger = {
    warn: (_o: unknown, m: string) => lines.push(`warn ${m}`),
    info: (_o: unknown, m: string) => lines.push(`info ${m}`),
  } as never;
  const derived: string[] = [];
  const board = new StatusBoard({
    now: () => now,
    logger,
    derive: (input, at) => (derived.push(input.node.target.name), deriveNodeStatus(input, at)),
  });
  return {
    state,
    board,
    lines,
    apply(node: string, r: ProbeResult, retryAfter?: string) {
      state.apply(node, r, retryAfter);
      board.noteResult(node, r);
    },
    /** Updates the board; returns the nodes it derived again. */
    update(): string[] {
      derived.length = 0;
      board.update(state);
      return [...derived];
    },
    advance: (ms: number) => (now += ms),
    at: () => now,
  };
}

describe('fleet changes', () => {
  it('tells a watcher which nodes got a new state, and when nodes came, went or were replaced', () => {
    const a = target('a', { probes: ['blockNumber'] });
    const b = target('b', { probes: ['blockNumber'] });
    const state = new FleetState([a, b], noBackoff);
    const w = state.watch();
    expect(w.membership).toBe(true); // a new watcher reads everything first
    w.membership = false;
    state.apply('b', height(7, 1000));
    expect([...w.nodes].map((n) => n.target.name)).toEqual(['b']);
    w.nodes.clear();
    state.setTargets([a, { ...b, labels: { role: 'x' } }]); // a setting the views show: new revision
    expect([...w.nodes]).toEqual([state.get('b')]);
    expect(w.membership).toBe(false);
    state.setTargets([a, { ...b, network: 'other' }]); // another node under the same name
    expect(w.membership).toBe(true);
    expect(w.nodes.size).toBe(0);
    w.membership = false;
    state.setTargets([a]);
    expect([w.membership, state.size]).toEqual([true, 1]);
    state.unwatch(w);
    w.membership = false;
    state.apply('a', height(8, 2000));
    expect([w.membership, w.nodes.size]).toEqual([false, 0]);
  });
});

describe('status board updates at fleet scale', () => {
  it('derives again only the nodes with a new result; the others keep their status as it was', () => {
    const names = Array.from({ length: 100 }, (_, i) => `n${i}`);
    const f = fleet(names, ['health', 'blockNumber']);
    for (const n of names) {
      f.apply(n, health(100, f.at()));
      f.apply(n, height(100, f.at()));
    }
    expect(f.update()).toHaveLength(100);
    const before = f.board.node('n3');
    f.advance(1000);
    f.apply('n7', health(101, f.at()));
    f.apply('n7', height(101, f.at()));
    expect(f.update()).toEqual(['n7']);
    expect(f.board.node('n3')).toBe(before); // the same object: not rebuilt
    expect(f.board.node('n3')).toMatchObject({ status: 'up', height: 100, lagBlocks: 1 }); // lag follows the network
    expect(f.board.node('n7')).toMatchObject({ status: 'up', height: 101, lastCheckAt: f.at() });
    expect(f.board.history('n7')).toHaveLength(2);
    expect(f.board.history('n3')).toHaveLength(1);
    f.advance(1000);
    expect(f.update()).toEqual([]);
    expect(f.board.lastUpdate).toBe(f.at());
  });

  it('derives a node again when its lag crosses the "behind" limit, beyond it follows in place', () => {
    const f = fleet(['a', 'b'], ['blockNumber']);
    f.apply('a', height(1000, f.at()));
    f.apply('b', height(1000, f.at()));
    f.update();
    f.advance(1000);
    f.apply('a', height(1005, f.at()));
    expect(f.update()).toEqual(['a']);
    expect(f.board.node('b')).toMatchObject({ status: 'up', lagBlocks: 5 });
    f.advance(1000);
    f.apply('a', height(1030, f.at()));
    expect(f.update()).toEqual(['a', 'b']);
    expect(f.board.node('b')).toMatchObject({ status: 'degraded', text: '30 blocks behind the fleet', since: f.at() });
    f.advance(1000);
    f.apply('a', height(1031, f.at()));
    expect(f.update()).toEqual(['a']);
    expect(f.board.node('b')).toMatchObject({
      status: 'degraded',
      text: '31 blocks behind the fleet',
      lagBlocks: 31,
      reasons: [{ code: 'behind', n: 31 }],
    });
    f.advance(1000);
    f.apply('b', height(1031, f.at()));
    expect(f.update()).toEqual(['b']);
    expect(f.board.node('b')).toMatchObject({ status: 'up', lagBlocks: 0 });
    expect(f.lines).toEqual(['warn b degraded: 30 blocks behind the fleet', 'info b healthy again after 2 s']);
  });

  it('notices a stall by the clock alone without a /health block age, counting the age in place', () => {
    const f = fleet(['a'], ['blockNumber']);
    f.apply('a', height(50, f.at()));
    f.update();
    f.advance(29_000);
    expect(f.update()).toEqual([]);
    expect(f.board.node('a')).toMatchObject({ status: 'up', blockAgeSecs: 29 });
    f.advance(1000);
    expect(f.update()).toEqual(['a']);
    expect(f.board.node('a')).toMatchObject({
      status: 'degraded',
      text: 'height unchanged for 30 s',
      blockAgeSecs: 30,
    });
    f.advance(1000); // from then on the words say the age
    expect(f.update()).toEqual(['a']);
    expect(f.board.node('a')).toMatchObject({ status: 'degraded', text: 'height unchanged for 31 s' });
    expect(f.lines).toEqual(['warn a degraded: height unchanged for 30 s']);
  });

  it('notices a backoff ending by the clock alone; takes a held change at its deadline, no rederive', () => {
    const f = fleet(['a'], ['health', 'validators']);
    const t0 = f.at();
    f.apply('a', health(100, t0));
    f.apply('a', proxy502('validators', t0), '20'); // Retry-After: not again before t0 + 8 ms + 20 s
    f.update();
    f.advance(5000);
    f.apply('a', health(101, f.at()));
    expect(f.update()).toEqual(['a']);
    // Held back, the old failure still counts.
    expect(f.board.node('a')).toMatchObject({ status: 'degraded', text: 'validators failing: HTTP 502 from proxy' });
    expect(f.board.node('a')!.probes.find((p) => p.probe === 'validators')).toMatchObject({
      backingOff: true,
      nextCheckAt: t0 + 25_000,
    });
    f.advance(15_007);
    expect(f.update()).toEqual([]);
    f.advance(1); // t0 + 20,008: the pause is over, the failure belongs to an earlier round
    expect(f.update()).toEqual(['a']);
    // The round is not complete (validators has not run again): the change waits for it, at most
    // as long as a round can take (5 s + 2 x 2 s).
    expect(f.board.node('a')!.status).toBe('degraded');
    f.advance(8999);
    expect(f.update()).toEqual([]);
    expect(f.board.node('a')!.status).toBe('degraded');
    f.advance(1);
    expect(f.update()).toEqual([]);
    expect(f.board.node('a')).toMatchObject({ status: 'up', since: f.at() });
    expect(f.board.node('a')!.probes.find((p) => p.probe === 'validators')).toMatchObject({
      outcome: 'failing',
      backingOff: false,
    });
    expect(f.lines).toEqual([
      'warn a degraded: validators failing: HTTP 502 from proxy',
      'info a healthy again after 29 s',
    ]);
  });

  it('shows down with "backing off" while every deciding probe is held back, untagged after', () => {
    const f = fleet(['a'], ['health']);
    f.apply('a', proxy502('health', f.at()), '12');
    f.update();
    expect(f.board.node('a')).toMatchObject({ status: 'down', backingOff: true });
    f.advance(12_007);
    expect(f.update()).toEqual([]);
    f.advance(1);
    expect(f.update()).toEqual(['a']);
    expect(f.board.node('a')).toMatchObject({ status: 'down', backingOff: false, text: 'HTTP 502 from proxy' });
  });
});

// ---- The same histories on two boards: one updated incrementally, one deriving every node each time ----

const PROBE_SETS: ProbeName[][] = [
  ['blockNumber'],
  ['health', 'blockNumber', 'validators'],
  ['health', 'metrics'],
  ['metrics', 'miningStats'],
];
const NODES = PROBE_SETS.map((probes, i) =>
  target(`n${i}`, { probes, intervalMs: 5000, timeoutMs: 2000, network: i === 3 ? 'b' : 'a' }),
);

type Step =
  | {
      kind: 'result';
      node: number;
      probe: number;
      outcome: 'ok' | 'failed' | 'unsupported';
      behind: number;
      age: number | null;
      retryAfter: number | null;
      ago: number;
    }
  | { kind: 'advance'; ms: number; blocks: number }
  | { kind: 'reload'; drop: number | null; move: number | null }
  | { kind: 'update' };

const steps = fc.array(
  fc.oneof(
    fc.record({
      kind: fc.constant('result' as const),
      node: fc.nat(NODES.length - 1),
      probe: fc.nat(2),
      outcome: fc.constantFrom('ok' as const, 'ok' as const, 'failed' as const, 'unsupported' as const),
      behind: fc.constantFrom(0, 0, 3, 25, 40),
      age: fc.option(fc.nat(90)),
      retryAfter: fc.option(fc.nat(40)),
      ago: fc.nat(3000),
    }),
    fc.record({
      kind: fc.constant('advance' as const),
      ms: fc.constantFrom(1, 250, 1000, 5000, 9000, 20_000, 31_000),
      blocks: fc.nat(4),
    }),
    fc.constant({ kind: 'update' as const }),
    fc.record({
      kind: fc.constant('reload' as const),
      drop: fc.option(fc.nat(NODES.length - 1)),
      move: fc.option(fc.nat(NODES.length - 1)),
    }),
  ),
  { minLength: 30, maxLength: 150 },
);

/** A reload: one node left out, one node moved to the other network (a new node to the fleet state). */
function reloaded(s: Extract<Step, { kind: 'reload' }>) {
  return NODES.filter((_, i) => i !== s.drop).map((t, i) =>
    i === s.move ? { ...t, network: t.network === 'a' ? 'b' : 'a' } : t,
  );
}

function resultOf(
  s: Extract<Step, { kind: 'result' }>,
  probe: ProbeName,
  at: number,
  chainHeight: number,
): ProbeResult {
  if (s.outcome === 'unsupported')
    return { kind: 'unsupported', probe, startedAt: at, durationMs: 3, message: 'not offered' };
  if (s.outcome === 'failed') return proxy502(probe, at);
  const h = chainHeight - s.behind;
  if (probe === 'health')
    return ok({ probe, value: { status: 'ok', height: h, lastBlockAgeSecs: s.age ?? undefined } }, at);
  if (probe === 'blockNumber') return height(h, at);
  if (probe === 'miningStats')
    return ok(
      {
        probe,
        value: { totalMiners: 1, activeMiners: 1, currentBlockReward: 1n, miningUpgradeHeight: 9, upgraded: false },
      },
      at,
    );
  return ok({ probe, value: [] }, at);
}

/** The fleet as a board deriving every node on every update sees it: every node read, each with a new revision. */
function everyNodeAnew(state: FleetState): BoardFleet {
  let revision = -2;
  const changes = new FleetChanges();
  Object.defineProperty(changes, 'membership', { get: () => true, set: () => undefined });
  return {
    *nodes() {
      for (const n of state.nodes()) yield { ...n, revision: revision-- };
    },
    get size() {
      return state.size;
    },
    watch: () => changes,
    unwatch: () => undefined,
  };
}

describe('status board, incremental against deriving every node', () => {
  it('shows the same statuses, events, log lines and history for any history of results and clock (property)', () => {
    fc.assert(
      fc.property(steps, (run) => {
        let now = 1_000_000;
        let chain = 5000;
        const sides = [0, 1].map(() => {
          const lines: string[] = [];
          const logger = {
            warn: (_o: unknown, m: string) => lines.push(`warn ${m}`),
            info: (_o: unknown, m: string) => lines.push(`info ${m}`),
          } as never;
          return { state: new FleetState(NODES, noBackoff), board: new StatusBoard({ now: () => now, logger }), lines };
        });
        const [inc, full] = sides as [(typeof sides)[0], (typeof sides)[0]];
        const fullFleet = everyNodeAnew(full.state);
        for (const s of run) {
          if (s.kind === 'advance') {
            now += s.ms;
            chain += s.blocks;
          } else if (s.kind === 'reload') {
            for (const side of sides) side.state.setTargets(reloaded(s));
          } else if (s.kind === 'result') {
            const t = NODES[s.node]!;
            const probe = t.probes[s.probe % t.probes.length]!;
            const r = resultOf(s, probe, now - s.ago, chain);
            for (const side of sides) {
              side.state.apply(t.name, r, s.retryAfter === null ? undefined : String(s.retryAfter));
              side.board.noteResult(t.name, r);
            }
          } else {
            inc.board.update(inc.state);
            full.board.update(fullFleet);
            expect(inc.board.nodes()).toEqual(full.board.nodes());
            expect(inc.board.recentEvents(200)).toEqual(full.board.recentEvents(200));
            expect(inc.lines).toEqual(full.lines);
            for (const t of NODES) expect(inc.board.history(t.name)).toEqual(full.board.history(t.name));
          }
        }
      }),
      { numRuns: 120 },
    );
  });
});

describe('status service', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('refreshes on its freshness timer no sooner than the cost-based gap after the last update', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const state = new FleetState([target('a', { probes: ['health'], intervalMs: 5000 })], noBackoff);
    let clock = 0;
    let cost = 400;
    let updates = 0;
    const fleet = () => {
      updates++;
      clock += cost; // what the update costs, on the service's cost clock
      return state;
    };
    const service = new StatusService({
      logger: { warn: () => undefined, info: () => undefined } as never,
      fleet,
      minIntervalMs: () => 5000,
      clock: () => clock,
      now: () => Date.now(),
    });
    await service.open();
    service.refresh(); // 400 ms: the next one at most 10 s later (50 x 400 ms, capped at 10 s)
    vi.advanceTimersByTime(9_999);
    expect(updates).toBe(1);
    vi.advanceTimersByTime(1);
    expect(updates).toBe(2);
    cost = 2; // cheap updates: new results are taken in within the shortest gap, 250 ms
    vi.advanceTimersByTime(10_000);
    const before = updates;
    service.noteResult('a', health(100, Date.now()));
    vi.advanceTimersByTime(249);
    expect(updates).toBe(before);
    vi.advanceTimersByTime(1);
    expect(updates).toBe(before + 1);
    await service.close();
  });

  it("waits for a node's round after its first new result, whenever the last update, then one update", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const state = new FleetState([target('a', { probes: ['health', 'blockNumber'], intervalMs: 5000 })], noBackoff);
    let updates = 0;
    let clock = 0;
    const fleet = () => {
      updates++;
      clock += 1;
      return state;
    };
    const service = new StatusService({
      logger: { warn: () => undefined, info: () => undefined } as never,
      fleet,
      minIntervalMs: () => 5000,
      clock: () => clock,
      now: () => Date.now(),
    });
    await service.open();
    service.refresh();
    vi.advanceTimersByTime(3_000); // well past the cost-based gap (250 ms)
    const before = updates;
    const result = (r: ProbeResult) => {
      state.apply('a', r);
      service.noteResult('a', r);
    };
    result(health(100, Date.now()));
    vi.advanceTimersByTime(150);
    result(height(100, Date.now()));
    vi.advanceTimersByTime(ROUND_SETTLE_MS - 151);
    expect(updates).toBe(before);
    vi.advanceTimersByTime(1);
    expect(updates).toBe(before + 1);
    expect(service.board.node('a')).toMatchObject({ status: 'up', height: 100 });
    expect(service.board.node('a')?.probes.map((p) => p.outcome)).toEqual(['ok', 'ok']);
    vi.advanceTimersByTime(1_000);
    expect(updates).toBe(before + 1);
    await service.close();
  });
});
