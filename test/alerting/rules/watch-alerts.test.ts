// The eleven watch alerts through the built-in engine over snapshots: each fires after its `for`
// on the chain state it names and resolves after its keep_firing_for once the state is good, and
// a value not known (never read, a failed read, a restart) neither fires nor resolves anything.
import { describe, expect, it } from 'vitest';
import { findDefinition } from '../../../src/alerting/rules/definitions/index.js';
import { AlertEngine } from '../../../src/alerting/rules/engine.js';
import { fingerprint } from '../../../src/alerting/rules/labels.js';
import type { ExporterSignals } from '../../../src/alerting/rules/types.js';
import type { FleetSnapshot } from '../../../src/state/snapshot.js';
import type {
  WatchSnapshot,
  WatchedAccountView,
  WatchedMinerView,
  WatchedValidatorView,
  WatchedView,
} from '../../../src/watch/types.js';

const S = 1000;
const M = 60 * S;
const T0 = Date.UTC(2026, 10, 27, 12, 0, 0);
const quiet: ExporterSignals = { pollOverruns: new Map(), evidenceWriteErrors: 0 };
const read = { consecutiveFailures: 0, failures: {}, intervalMs: 30 * S, lastSuccessSeconds: T0 / 1000 };

const validator = (over: Partial<WatchedValidatorView> = {}): WatchedValidatorView => ({
  kind: 'validator',
  name: 'val-main',
  address: 'aa'.repeat(32),
  network: 'main',
  ...read,
  registered: true,
  active: true,
  rank: 3,
  setSize: 21,
  rewarded: true,
  jailed: false,
  commissionRatio: 0.05,
  seatMarginRatio: 0.5,
  ...over,
});
const miner = (over: Partial<WatchedMinerView> = {}): WatchedMinerView => ({
  kind: 'miner',
  name: 'rig-01',
  address: 'bb'.repeat(32),
  network: 'main',
  ...read,
  registered: true,
  active: true,
  consecutiveMisses: 0,
  rewardMultiplier: 1,
  attendanceEpochs: 12,
  ...over,
});
const account = (over: Partial<WatchedAccountView> = {}): WatchedAccountView => ({
  kind: 'account',
  name: 'hot',
  address: 'cc'.repeat(32),
  network: 'main',
  ...read,
  balanceTokens: 100,
  unbondingClaimableTokens: 0,
  unbondingPendingTokens: 0,
  ...over,
});

/** Values a failed read leaves: the entry and its settings only. */
function unknown<V extends WatchedView>(v: V, failures = 1): V {
  const { kind, name, address, network, seatMarginBelow, commissionBps, minBalance, intervalMs, failures: f } = v;
  return {
    kind,
    name,
    address,
    network,
    seatMarginBelow,
    commissionBps,
    minBalance,
    intervalMs,
    failures: f,
    consecutiveFailures: failures,
  } as V;
}

function snapshot(entries: WatchedView[]): FleetSnapshot {
  const watch: WatchSnapshot = { entries };
  return { nodes: [], networks: [{ network: 'main', decimals: 9, nodes: 1, nodesUp: 1, versions: 1 }], watch };
}

function engineFor(name: string): AlertEngine {
  return new AlertEngine({
    runbookBase: 'alerts/RUNBOOKS.md',
    instance: 'exp-1',
    definitions: [findDefinition(name)!],
  });
}

function run(engine: AlertEngine, from: number, to: number, entry: WatchedView): void {
  for (let t = from; t <= to; t += 30 * S) engine.evaluate({ snapshot: snapshot([entry]), exporter: quiet }, t);
}

const state = (engine: AlertEngine) => engine.list().map((i) => i.state);

// name, the entry in the bad state, the same entry in a good state, the address label.
const CASES: Array<[string, WatchedView, WatchedView, string]> = [
  ['LedgerValidatorInactive', validator({ active: false, rank: undefined }), validator(), 'validator'],
  ['LedgerValidatorOffline', validator({ rewarded: false }), validator(), 'validator'],
  ['LedgerValidatorJailed', validator({ jailed: true }), validator(), 'validator'],
  [
    'LedgerValidatorSeatAtRisk',
    validator({ seatMarginBelow: 0.1, seatMarginRatio: 0.04 }),
    validator({ seatMarginBelow: 0.1, seatMarginRatio: 0.2 }),
    'validator',
  ],
  [
    'LedgerValidatorCommissionChanged',
    validator({ commissionBps: 500, commissionRatio: 0.09 }),
    validator({ commissionBps: 500, commissionRatio: 0.05 }),
    'validator',
  ],
  ['LedgerMinerInactive', miner({ active: false }), miner(), 'miner'],
  ['LedgerMinerCheckinMissed', miner({ consecutiveMisses: 2 }), miner(), 'miner'],
  ['LedgerMinerRewardReduced', miner({ rewardMultiplier: 0.8 }), miner(), 'miner'],
  [
    'LedgerAccountBalanceLow',
    account({ minBalance: 25, balanceTokens: 10 }),
    account({ minBalance: 25, balanceTokens: 30 }),
    'account',
  ],
  ['LedgerUnbondingClaimable', account({ unbondingClaimableTokens: 1500 }), account(), 'account'],
  ['LedgerWatchReadFailing', unknown(miner(), 3), miner(), 'miner'],
];

describe.each(CASES)('%s', (name, bad, good, addressLabel) => {
  const def = findDefinition(name)!;
  const { forMs, keepFiringForMs } = def.defaults;

  it('fires after its `for` with name, network and the address label, and resolves after keep_firing_for', () => {
    const engine = engineFor(name);
    run(engine, T0, T0 + forMs - 30 * S, bad);
    expect(state(engine)).toEqual(forMs > 30 * S ? ['pending'] : ['firing']);
    run(engine, T0 + forMs, T0 + forMs, bad);
    const [inst] = engine.list();
    expect(inst!.state).toBe('firing');
    expect(inst!.labels).toEqual({
      alertname: name,
      severity: def.defaults.severity,
      name: bad.name,
      network: 'main',
      [addressLabel]: bad.address,
    });
    run(engine, T0 + forMs + 30 * S, T0 + forMs + keepFiringForMs, good);
    expect(state(engine)).toEqual(['firing']);
    run(engine, T0 + forMs + keepFiringForMs + 30 * S, T0 + forMs + keepFiringForMs + 60 * S, good);
    expect(state(engine)).toEqual(['resolved']);
  });

  it.skipIf(name === 'LedgerWatchReadFailing')('neither fires nor resolves while the entry cannot be read', () => {
    const engine = engineFor(name);
    // Unknown from the start (an entry just added, a restart): nothing at all.
    run(engine, T0, T0 + 60 * M, unknown(bad));
    expect(engine.list()).toEqual([]);
    // Firing, then unknown far longer than keep_firing_for: still firing; known good: resolves.
    run(engine, T0 + 61 * M, T0 + 61 * M + forMs, bad);
    expect(state(engine)).toEqual(['firing']);
    run(engine, T0 + 62 * M + forMs, T0 + 120 * M, unknown(bad));
    expect(state(engine)).toEqual(['firing']);
    run(engine, T0 + 121 * M, T0 + 121 * M + keepFiringForMs + 30 * S, good);
    expect(state(engine)).toEqual(['resolved']);
  });
});

describe('restarts, reloads and commission history', () => {
  it('a restored firing alert stays firing after a restart until the entry is read again', () => {
    const first = engineFor('LedgerMinerCheckinMissed');
    run(first, T0, T0 + 2 * M, miner({ consecutiveMisses: 1 }));
    const saved = first.list();
    expect(saved.map((i) => i.state)).toEqual(['firing']);
    for (const name of ['LedgerMinerCheckinMissed', 'LedgerWatchReadFailing'] as const) {
      const restarted = engineFor(name);
      const labels = { ...saved[0]!.labels, alertname: name };
      restarted.restore([{ ...saved[0]!, id: fingerprint(labels), alertname: name, labels }]);
      // Not read since the restart: no values, no success yet.
      run(restarted, T0 + 10 * M, T0 + 40 * M, { ...unknown(miner(), 0), lastSuccessSeconds: undefined });
      expect(
        restarted.list().map((i) => i.state),
        name,
      ).toEqual(['firing']);
    }
  });

  it('an entry removed by a reload resolves at once', () => {
    const engine = engineFor('LedgerAccountBalanceLow');
    run(engine, T0, T0 + 5 * M, account({ minBalance: 25, balanceTokens: 1 }));
    expect(state(engine)).toEqual(['firing']);
    engine.evaluate(
      { snapshot: snapshot([account({ name: 'other', address: 'dd'.repeat(32) })]), exporter: quiet },
      T0 + 6 * M,
    );
    expect(state(engine)).toEqual(['resolved']);
  });

  it('without a configured commission, any change within the last hour fires; an hour later it resolves', () => {
    const engine = engineFor('LedgerValidatorCommissionChanged');
    run(engine, T0, T0 + 10 * M, validator({ commissionRatio: 0.05 }));
    expect(engine.list()).toEqual([]);
    run(engine, T0 + 10 * M + 30 * S, T0 + 15 * M, validator({ commissionRatio: 0.07 }));
    expect(state(engine)).toEqual(['firing']);
    expect(engine.list()[0]!.value).toBe(0.07);
    expect(engine.list()[0]!.annotations.summary).toBe(
      'Validator val-main (main): commission 7%, changed within the last hour',
    );
    run(engine, T0 + 15 * M + 30 * S, T0 + 80 * M, validator({ commissionRatio: 0.07 }));
    expect(state(engine)).toEqual(['resolved']);
  });

  it('no configured commission: after a restart nothing resolves or fires until an hour is seen', () => {
    const first = engineFor('LedgerValidatorCommissionChanged');
    run(first, T0, T0 + 10 * M, validator({ commissionRatio: 0.05 }));
    run(first, T0 + 10 * M + 30 * S, T0 + 15 * M, validator({ commissionRatio: 0.07 }));
    const saved = first.list();
    expect(saved.map((i) => i.state)).toEqual(['firing']);
    // Restarted 5 minutes later: the hour before it is gone from memory, the alert is not.
    const restarted = engineFor('LedgerValidatorCommissionChanged');
    restarted.restore(saved);
    run(restarted, T0 + 20 * M, T0 + 79 * M, validator({ commissionRatio: 0.07 }));
    expect(state(restarted)).toEqual(['firing']);
    run(restarted, T0 + 80 * M, T0 + 80 * M + 6 * M, validator({ commissionRatio: 0.07 }));
    expect(state(restarted)).toEqual(['resolved']);
    // Another validator, watched from the restart on with an unchanged commission: nothing.
    const fresh = engineFor('LedgerValidatorCommissionChanged');
    run(fresh, T0, T0 + 30 * M, validator({ commissionRatio: 0.05 }));
    expect(fresh.list()).toEqual([]);
  });

  it('a commission other than the configured one says both, as Prometheus renders the rule (it never changed)', () => {
    const engine = engineFor('LedgerValidatorCommissionChanged');
    run(engine, T0, T0 + 5 * M, validator({ commissionBps: 500, commissionRatio: 0.025 }));
    expect(state(engine)).toEqual(['firing']);
    expect(engine.list()[0]!.annotations.summary).toBe('Validator val-main (main): commission 2.5%, expected 5%');
    // The configured commission changed by a reload while the value stayed: the summary follows.
    run(engine, T0 + 5 * M + 30 * S, T0 + 6 * M, validator({ commissionBps: 400, commissionRatio: 0.025 }));
    expect(engine.list()[0]!.annotations.summary).toBe('Validator val-main (main): commission 2.5%, expected 4%');
  });

  it('offline needs the validator in the set: an inactive unpaid validator is not offline', () => {
    const engine = engineFor('LedgerValidatorOffline');
    run(engine, T0, T0 + 30 * M, validator({ active: false, rewarded: false }));
    expect(engine.list()).toEqual([]);
  });
});
