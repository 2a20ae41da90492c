// The delegation and agent alerts through the built-in engine with an injected clock: each fires
// once on the chain state it names and resolves once; a read that fails neither fires nor
// resolves anything; a restart (a new engine given the saved instances and durable look-back)
// neither resolves nor re-fires LedgerDelegationRemoved and LedgerAgentScoreDropped.
import { describe, expect, it } from 'vitest';
import { findDefinition } from '../../../src/alerting/rules/definitions/index.js';
import { AlertEngine } from '../../../src/alerting/rules/engine.js';
import type { ExporterSignals } from '../../../src/alerting/rules/types.js';
import type { FleetSnapshot } from '../../../src/state/snapshot.js';
import type {
  DelegationView,
  WatchedAgentView,
  WatchedDelegatorView,
  WatchedEntryView,
} from '../../../src/watch/types.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const T0 = Date.UTC(2026, 10, 28, 12, 0, 0);
const quiet: ExporterSignals = { pollOverruns: new Map(), evidenceWriteErrors: 0 };
const read = { consecutiveFailures: 0, failures: {}, intervalMs: 30 * S, lastSuccessSeconds: T0 / 1000 };
const V1 = 'a1'.repeat(32);
const V2 = 'b2'.repeat(32);

const d = (validator: string, amount: bigint, over: Partial<DelegationView> = {}): DelegationView => ({
  validator,
  amount: amount.toString(),
  tokens: Number(amount) / 1e9,
  commissionRatio: 0.05,
  active: true,
  rewarded: true,
  ...over,
});
const delegator = (
  list: DelegationView[] | undefined,
  over: Partial<WatchedDelegatorView> = {},
): WatchedDelegatorView => ({
  kind: 'delegator',
  name: 'my-stake',
  address: 'dd'.repeat(32),
  network: 'main',
  ...read,
  ...(list && { delegations: list }),
  ...(!list && { consecutiveFailures: 1 }),
  ...over,
});
const agent = (total: number | undefined, over: Partial<WatchedAgentView> = {}): WatchedAgentView => ({
  kind: 'agent',
  name: 'arena-bot',
  address: '0c'.repeat(32),
  network: 'main',
  ...read,
  registered: true,
  ...(total !== undefined && { scores: { total } }),
  ...(total === undefined && { consecutiveFailures: 1 }),
  ...over,
});

const snapshot = (entries: WatchedEntryView[]): FleetSnapshot => ({
  nodes: [],
  networks: [{ network: 'main', decimals: 9, nodes: 1, nodesUp: 1, versions: 1 }],
  watch: { entries },
});
const engineFor = (name: string) =>
  new AlertEngine({ runbookBase: 'alerts/RUNBOOKS.md', instance: 'exp-1', definitions: [findDefinition(name)!] });

/** Evaluates every 30 s over [from, to]; counts the transitions to firing and to resolved it saw. */
function run(engine: AlertEngine, from: number, to: number, entry: WatchedEntryView, seen = { fired: 0, resolved: 0 }) {
  for (let t = from; t <= to; t += 30 * S) {
    const before = new Map(engine.list().map((i) => [i.id, i.state]));
    engine.evaluate({ snapshot: snapshot([entry]), exporter: quiet }, t);
    for (const i of engine.list()) {
      if (i.state === 'firing' && before.get(i.id) !== 'firing') seen.fired++;
      if (i.state === 'resolved' && before.get(i.id) !== 'resolved') seen.resolved++;
    }
  }
  return seen;
}
const firing = (e: AlertEngine) => e.active().filter((i) => i.state === 'firing');

/** What a restart hands the new engine: the saved instances and the durable look-back (as its files do). */
function restarted(name: string, old: AlertEngine, downMs: number): AlertEngine {
  const fresh = engineFor(name);
  fresh.restore(old.list(), downMs);
  fresh.durable.import(
    old.durable.export((t) => t),
    (t) => t,
  );
  return fresh;
}

describe('per-delegation alerts', () => {
  it.each([
    ['LedgerDelegationValidatorInactive', { active: false, rewarded: undefined }],
    ['LedgerDelegationValidatorOffline', { rewarded: false }],
    ['LedgerDelegationCommissionHigh', { commissionRatio: 0.2 }],
  ] as const)('%s fires once for that delegation (labels with the validator), resolves once', (name, bad) => {
    const def = findDefinition(name)!;
    const engine = engineFor(name);
    const badEntry = delegator([d(V1, 5n), d(V2, 5n, bad)], { maxCommissionBps: 1_000 });
    const seen = run(engine, T0, T0 + def.defaults.forMs + M, badEntry);
    expect(firing(engine).map((i) => i.labels)).toEqual([
      expect.objectContaining({ name: 'my-stake', network: 'main', delegator: 'dd'.repeat(32), validator: V2 }),
    ]);
    // A failed read holds it as it is, however long.
    run(engine, T0 + def.defaults.forMs + 2 * M, T0 + 2 * H, delegator(undefined, { maxCommissionBps: 1_000 }), seen);
    expect(firing(engine)).toHaveLength(1);
    run(engine, T0 + 2 * H + 30 * S, T0 + 3 * H, delegator([d(V1, 5n), d(V2, 5n)], { maxCommissionBps: 1_000 }), seen);
    expect(seen).toEqual({ fired: 1, resolved: 1 });
  });
});

describe('LedgerDelegationRemoved', () => {
  const name = 'LedgerDelegationRemoved';
  const full = delegator([d(V1, 10n ** 30n + 1n), d(V2, 7n)]);
  const shrunk = delegator([d(V1, 10n ** 30n)]); // V1 down by one base unit, V2 gone

  it('fires once per delegation shrunk (exactly, by one base unit) or gone, and resolves once when back', () => {
    const engine = engineFor(name);
    const seen = run(engine, T0, T0 + 10 * M, full);
    expect(seen.fired).toBe(0);
    run(engine, T0 + 10 * M + 30 * S, T0 + 20 * M, shrunk, seen);
    expect(firing(engine).map((i) => [i.labels.validator, i.value])).toEqual([
      [V1, expect.closeTo(0, 6)],
      [V2, 1],
    ]);
    run(engine, T0 + 20 * M + 30 * S, T0 + 40 * M, full, seen);
    expect(seen).toEqual({ fired: 2, resolved: 2 });
  });

  it('a restart neither resolves nor re-fires it, nor does a read failure; 24 h later it resolves', () => {
    let engine = engineFor(name);
    run(engine, T0, T0 + 10 * M, full);
    const seen = run(engine, T0 + 10 * M + 30 * S, T0 + 20 * M, shrunk);
    expect(seen.fired).toBe(2);
    // Down for 5 minutes; the first reads after the restart fail.
    engine = restarted(name, engine, 5 * M);
    run(engine, T0 + 25 * M, T0 + 30 * M, delegator(undefined), seen);
    expect(firing(engine)).toHaveLength(2);
    run(engine, T0 + 30 * M + 30 * S, T0 + 2 * H, shrunk, seen);
    expect(firing(engine)).toHaveLength(2);
    expect(seen).toEqual({ fired: 2, resolved: 0 });
    // Once the larger amount is 24 hours old, the smaller one is what it is compared with.
    run(engine, T0 + 24 * H + 19 * M, T0 + 24 * H + 40 * M, shrunk, seen);
    expect(seen).toEqual({ fired: 2, resolved: 2 });
    expect(engine.durable.size).toBe(1); // V2 (gone for 24 h) forgotten, V1 kept
  });

  it('a delegator read failure alone fires nothing', () => {
    const engine = engineFor(name);
    run(engine, T0, T0 + 10 * M, full);
    const seen = run(engine, T0 + 10 * M + 30 * S, T0 + 40 * M, delegator(undefined));
    run(engine, T0 + 40 * M + 30 * S, T0 + 50 * M, full, seen);
    expect(seen).toEqual({ fired: 0, resolved: 0 });
  });
});

describe('agent alerts', () => {
  it('LedgerAgentNotRegistered fires once, holds through a failed read, resolves once', () => {
    const engine = engineFor('LedgerAgentNotRegistered');
    const seen = run(engine, T0, T0 + 10 * M, agent(0.5, { registered: false }));
    run(engine, T0 + 10 * M + 30 * S, T0 + 30 * M, agent(undefined, { registered: undefined }), seen);
    expect(firing(engine)).toHaveLength(1);
    run(engine, T0 + 30 * M + 30 * S, T0 + 50 * M, agent(0.5), seen);
    expect(seen).toEqual({ fired: 1, resolved: 1 });
  });

  it('LedgerAgentScoreLow fires below minScore only', () => {
    const engine = engineFor('LedgerAgentScoreLow');
    const seen = run(engine, T0, T0 + 20 * M, agent(0.29, { minScore: 3_000 }));
    expect(firing(engine).map((i) => i.value)).toEqual([0.29]);
    run(engine, T0 + 20 * M + 30 * S, T0 + 50 * M, agent(0.3, { minScore: 3_000 }), seen);
    expect(seen).toEqual({ fired: 1, resolved: 1 });
  });

  it('LedgerAgentScoreDropped: a 20% fall fires once, survives a restart, resolves when the high is 1 h old', () => {
    const name = 'LedgerAgentScoreDropped';
    let engine = engineFor(name);
    const seen = run(engine, T0, T0 + 10 * M, agent(0.5));
    run(engine, T0 + 10 * M + 30 * S, T0 + 20 * M, agent(0.41), seen); // 18%: nothing
    expect(seen.fired).toBe(0);
    run(engine, T0 + 20 * M + 30 * S, T0 + 25 * M, agent(0.4), seen); // 20% below 0.5
    expect(firing(engine).map((i) => i.value)).toEqual([expect.closeTo(0.2, 6)]);
    engine = restarted(name, engine, 2 * M);
    run(engine, T0 + 27 * M, T0 + 30 * M, agent(undefined), seen);
    run(engine, T0 + 30 * M + 30 * S, T0 + 60 * M, agent(0.4), seen);
    expect(seen).toEqual({ fired: 1, resolved: 0 });
    run(engine, T0 + 60 * M + 30 * S, T0 + 90 * M, agent(0.4), seen);
    expect(seen).toEqual({ fired: 1, resolved: 1 });
  });
});
