// The built-in engine's state machine with a fake clock: every transition, flapping, nodes
// removed by reload, labels that change, overrides, range-based alerts and restored state.
import { describe, expect, it } from 'vitest';
import { findDefinition } from '../../../src/alerting/rules/definitions/index.js';
import { AlertEngine, PENDING_OUTAGE_TOLERANCE_MS, type EngineOptions } from '../../../src/alerting/rules/engine.js';
import type { AlertInstance } from '../../../src/alerting/rules/instance.js';
import type { ExporterSignals } from '../../../src/alerting/rules/types.js';
import { FAILURE_REASONS, type FailureReason } from '../../../src/domain.js';
import type { FleetSnapshot, NetworkView, NodeView } from '../../../src/state/snapshot.js';

const S = 1000;
const M = 60 * S;
const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

function node(name: string, over: Partial<NodeView> = {}, network = 'main'): NodeView {
  return {
    name,
    network,
    labels: {},
    up: true,
    height: 100,
    lagBlocks: 0,
    health: { status: 'ok', peerCount: 8, height: 100 },
    probes: [{ probe: 'health', supported: true, failures: zeroFailures(), consecutiveFailures: 0, backingOff: false }],
    ...over,
  };
}

function zeroFailures(over: Partial<Record<FailureReason, number>> = {}): Record<FailureReason, number> {
  return { ...(Object.fromEntries(FAILURE_REASONS.map((r) => [r, 0])) as Record<FailureReason, number>), ...over };
}

function snapshot(nodes: NodeView[], networks: Partial<NetworkView>[] = []): FleetSnapshot {
  const nets = new Map<string, NetworkView>();
  for (const n of nodes) {
    const net = nets.get(n.network) ?? { network: n.network, decimals: 9, nodes: 0, nodesUp: 0, versions: 1 };
    net.nodes++;
    if (n.up) net.nodesUp++;
    nets.set(n.network, net);
  }
  for (const over of networks) nets.set(over.network!, { ...nets.get(over.network!)!, ...over });
  return { nodes, networks: [...nets.values()] };
}

const quiet: ExporterSignals = { pollOverruns: new Map(), evidenceWriteErrors: 0 };
const allOpts = (over: Partial<EngineOptions> = {}): EngineOptions => ({
  runbookBase: 'alerts/RUNBOOKS.md',
  instance: 'exp-1',
  ...over,
});

/** Runs evaluations every `step` from `from` to `to` (inclusive) with the snapshot of that time. */
function run(
  engine: AlertEngine,
  from: number,
  to: number,
  step: number,
  snap: (t: number) => FleetSnapshot,
  exporter = quiet,
): void {
  for (let t = from; t <= to; t += step) engine.evaluate({ snapshot: snap(t), exporter }, t);
}

const find = (engine: AlertEngine, name: string, nodeName?: string): AlertInstance | undefined =>
  engine.list().find((i) => i.alertname === name && (nodeName === undefined || i.labels.node === nodeName));

describe('alert instance transitions (LedgerNodeDown: for 1m, keep_firing_for 5m)', () => {
  // Only LedgerNodeDown, so the other definitions' reactions to these snapshots stay out of the way.
  const opts = (over: Partial<EngineOptions> = {}) =>
    allOpts({ definitions: [findDefinition('LedgerNodeDown')!], ...over });
  const down = snapshot([node('a', { up: false, height: undefined, lagBlocks: undefined }), node('b')]);
  const up = snapshot([node('a'), node('b')]);

  it('inactive -> pending -> firing -> (kept firing) -> resolved -> forgotten', () => {
    const e = new AlertEngine(opts());
    e.evaluate({ snapshot: up, exporter: quiet }, T0);
    expect(e.list()).toEqual([]);

    e.evaluate({ snapshot: down, exporter: quiet }, T0 + 15 * S);
    let a = find(e, 'LedgerNodeDown', 'a')!;
    expect(a).toMatchObject({ state: 'pending', activeAt: T0 + 15 * S });
    expect(a.labels).toEqual({ alertname: 'LedgerNodeDown', severity: 'critical', node: 'a', network: 'main' });
    expect(a.annotations.summary).toBe('Ledger node a (main) is down');
    expect(a.annotations.description).toBe(
      'Node a in network main has not given a valid answer to its health or blockNumber probe for more than 1 minute.',
    );
    expect(a.annotations.runbook_url).toBe('alerts/RUNBOOKS.md#ledgernodedown');

    run(e, T0 + 30 * S, T0 + 60 * S, 15 * S, () => down);
    expect(find(e, 'LedgerNodeDown', 'a')!.state).toBe('pending'); // 45 s active < 1 m

    e.evaluate({ snapshot: down, exporter: quiet }, T0 + 75 * S);
    a = find(e, 'LedgerNodeDown', 'a')!;
    expect(a).toMatchObject({ state: 'firing', activeAt: T0 + 15 * S, firingSince: T0 + 75 * S });

    // Recovered: keep_firing_for holds it for 5 minutes from the first clear evaluation.
    run(e, T0 + 90 * S, T0 + 90 * S + 5 * M - 15 * S, 15 * S, () => up);
    expect(find(e, 'LedgerNodeDown', 'a')!.state).toBe('firing');
    e.evaluate({ snapshot: up, exporter: quiet }, T0 + 90 * S + 5 * M);
    a = find(e, 'LedgerNodeDown', 'a')!;
    expect(a).toMatchObject({ state: 'resolved', resolvedAt: T0 + 90 * S + 5 * M, firingSince: T0 + 75 * S });
    expect(e.active()).toEqual([]);

    // Listed as resolved for 15 minutes (so receivers hear of it), then gone.
    e.evaluate({ snapshot: up, exporter: quiet }, T0 + 90 * S + 19 * M);
    expect(find(e, 'LedgerNodeDown', 'a')?.state).toBe('resolved');
    e.evaluate({ snapshot: up, exporter: quiet }, T0 + 90 * S + 20 * M);
    expect(find(e, 'LedgerNodeDown', 'a')).toBeUndefined();
  });

  it('a pending instance whose condition clears disappears without a resolved state', () => {
    const e = new AlertEngine(opts());
    e.evaluate({ snapshot: down, exporter: quiet }, T0);
    expect(find(e, 'LedgerNodeDown')!.state).toBe('pending');
    e.evaluate({ snapshot: up, exporter: quiet }, T0 + 15 * S);
    expect(e.list()).toEqual([]);
  });

  it('fires again as a new instance (new activeAt) after it resolved', () => {
    const e = new AlertEngine(opts({ rules: { LedgerNodeDown: { forMs: 0, keepFiringForMs: 0 } } }));
    e.evaluate({ snapshot: down, exporter: quiet }, T0);
    expect(find(e, 'LedgerNodeDown')).toMatchObject({ state: 'firing', firingSince: T0 });
    e.evaluate({ snapshot: up, exporter: quiet }, T0 + 15 * S);
    expect(find(e, 'LedgerNodeDown')!.state).toBe('resolved');
    e.evaluate({ snapshot: down, exporter: quiet }, T0 + 30 * S);
    expect(find(e, 'LedgerNodeDown')).toMatchObject({
      state: 'firing',
      activeAt: T0 + 30 * S,
      firingSince: T0 + 30 * S,
    });
    expect(e.list()).toHaveLength(1);
  });

  it('flapping faster than `for` never fires; flapping while firing keeps one instance firing', () => {
    const e = new AlertEngine(opts());
    const flap = (t: number) => (Math.floor((t - T0) / (30 * S)) % 2 === 0 ? down : up);
    run(e, T0, T0 + 10 * M, 15 * S, flap);
    expect(e.list().filter((i) => i.state === 'firing')).toEqual([]);

    run(e, T0 + 11 * M, T0 + 13 * M, 15 * S, () => down);
    const firing = find(e, 'LedgerNodeDown', 'a')!;
    expect(firing.state).toBe('firing');
    // Down 30 s, up 30 s for 20 minutes: never 5 minutes clear, so the same instance keeps firing.
    run(e, T0 + 13 * M + 15 * S, T0 + 33 * M, 15 * S, flap);
    const after = find(e, 'LedgerNodeDown', 'a')!;
    expect(after).toMatchObject({
      state: 'firing',
      id: firing.id,
      firingSince: firing.firingSince,
      activeAt: firing.activeAt,
    });
  });

  it('a node removed by a reload resolves at once (no keep_firing_for for a node that no longer exists)', () => {
    const e = new AlertEngine(opts());
    run(e, T0, T0 + 2 * M, 15 * S, () => down);
    expect(find(e, 'LedgerNodeDown', 'a')!.state).toBe('firing');
    e.evaluate({ snapshot: snapshot([node('b')]), exporter: quiet }, T0 + 2 * M + 15 * S);
    expect(find(e, 'LedgerNodeDown', 'a')).toMatchObject({ state: 'resolved', resolvedAt: T0 + 2 * M + 15 * S });
  });

  it('labels that change make a new instance; the old one resolves', () => {
    const e = new AlertEngine(opts({ rules: { LedgerNodeDown: { forMs: 0 } } }));
    e.evaluate({ snapshot: down, exporter: quiet }, T0);
    const before = find(e, 'LedgerNodeDown', 'a')!;
    // Reload moves node a to network "test" (the only node there), so network main's instance is gone.
    const moved = snapshot([node('a', { up: false, height: undefined }, 'test'), node('b')]);
    e.evaluate({ snapshot: moved, exporter: quiet }, T0 + 15 * S);
    const now = e.list().filter((i) => i.alertname === 'LedgerNodeDown');
    expect(now.map((i) => [i.labels.network, i.state])).toEqual([
      ['main', 'firing'], // network main still exists: keep_firing_for holds the old identity
      ['test', 'firing'],
    ]);
    expect(now[1]!.id).not.toBe(before.id);
    expect(now[1]!.activeAt).toBe(T0 + 15 * S);
    // A severity override is a label change too.
    e.configure(opts({ rules: { LedgerNodeDown: { forMs: 0, keepFiringForMs: 0, severity: 'warning' } } }));
    e.evaluate({ snapshot: moved, exporter: quiet }, T0 + 30 * S);
    const states = e
      .list()
      .filter((i) => i.alertname === 'LedgerNodeDown')
      .map((i) => `${i.labels.network}/${i.labels.severity}/${i.state}`);
    expect(states.sort()).toEqual(['main/critical/resolved', 'test/critical/resolved', 'test/warning/firing']);
  });

  it('disabling an alert by reload resolves its instances', () => {
    const e = new AlertEngine(opts({ rules: { LedgerNodeDown: { forMs: 0 } } }));
    e.evaluate({ snapshot: down, exporter: quiet }, T0);
    e.configure(opts({ rules: { LedgerNodeDown: { enabled: false } } }));
    e.evaluate({ snapshot: down, exporter: quiet }, T0 + 15 * S);
    expect(find(e, 'LedgerNodeDown')!.state).toBe('resolved');
    expect(e.params('LedgerNodeDown')).toBeUndefined();
  });

  it('restored instances keep their activeAt and firingSince (a restart does not restart `for`)', () => {
    const first = new AlertEngine(opts());
    run(first, T0, T0 + 45 * S, 15 * S, () => down);
    const saved = structuredClone(first.list());
    expect(saved[0]!.state).toBe('pending');
    const second = new AlertEngine(opts());
    second.restore(saved);
    second.evaluate({ snapshot: down, exporter: quiet }, T0 + 60 * S);
    expect(find(second, 'LedgerNodeDown', 'a')).toMatchObject({
      state: 'firing',
      activeAt: T0,
      firingSince: T0 + 60 * S,
    });
    // Condition cleared while "down": the restored firing instance goes through keep_firing_for and resolves.
    const third = new AlertEngine(opts({ rules: { LedgerNodeDown: { keepFiringForMs: 0 } } }));
    third.restore(second.list());
    third.evaluate({ snapshot: up, exporter: quiet }, T0 + 10 * M);
    expect(find(third, 'LedgerNodeDown', 'a')).toMatchObject({
      state: 'resolved',
      resolvedAt: T0 + 10 * M,
      firingSince: T0 + 60 * S,
    });
  });

  it('a pending instance saved over an hour before the restart starts pending again', () => {
    const first = new AlertEngine(opts());
    run(first, T0, T0 + 45 * S, 15 * S, () => down);
    const saved = structuredClone(first.list());
    const later = T0 + 45 * S + PENDING_OUTAGE_TOLERANCE_MS + M;
    const late = new AlertEngine(opts());
    late.restore(saved, later - (T0 + 45 * S));
    late.evaluate({ snapshot: down, exporter: quiet }, later);
    expect(find(late, 'LedgerNodeDown', 'a')).toMatchObject({ state: 'pending', activeAt: later });
    // Within the tolerance it keeps its activeAt, so `for` counts from before the restart.
    const soon = new AlertEngine(opts());
    soon.restore(saved, PENDING_OUTAGE_TOLERANCE_MS - M);
    soon.evaluate({ snapshot: down, exporter: quiet }, T0 + 45 * S + PENDING_OUTAGE_TOLERANCE_MS - M);
    expect(find(soon, 'LedgerNodeDown', 'a')).toMatchObject({ state: 'firing', activeAt: T0 });
  });
});

describe('the other definitions over snapshots', () => {
  const opts = allOpts;
  it('thresholds come from overrides (LedgerNodeBehindFleet, LedgerNodeLowPeers)', () => {
    const snap = snapshot([node('a', { lagBlocks: 30, health: { status: 'ok', peerCount: 2 } }), node('b')]);
    const def = new AlertEngine(
      opts({ rules: { LedgerNodeBehindFleet: { forMs: 0 }, LedgerNodeLowPeers: { forMs: 0 } } }),
    );
    def.evaluate({ snapshot: snap, exporter: quiet }, T0);
    expect(find(def, 'LedgerNodeBehindFleet', 'a')).toMatchObject({ state: 'firing', value: 30 });
    expect(find(def, 'LedgerNodeBehindFleet', 'a')!.annotations.description).toContain('is 30 blocks behind');
    expect(find(def, 'LedgerNodeLowPeers')).toBeUndefined(); // 2 peers is not < 2
    const tuned = new AlertEngine(
      opts({
        rules: { LedgerNodeBehindFleet: { forMs: 0, threshold: 40 }, LedgerNodeLowPeers: { forMs: 0, threshold: 3 } },
      }),
    );
    tuned.evaluate({ snapshot: snap, exporter: quiet }, T0);
    expect(find(tuned, 'LedgerNodeBehindFleet')).toBeUndefined();
    expect(find(tuned, 'LedgerNodeLowPeers', 'a')!.annotations.description).toContain('fewer than 3 peers');
  });

  it('LedgerNodeHeightStalled fires only after the height stood still for the window, plus `for`', () => {
    const e = new AlertEngine(opts({ definitions: [findDefinition('LedgerNodeHeightStalled')!] }));
    const at = (h: number) => snapshot([node('a', { height: h })]);
    run(e, T0, T0 + 2 * M, 15 * S, (t) => at(100 + (t - T0) / (15 * S)));
    expect(find(e, 'LedgerNodeHeightStalled')?.state).not.toBe('firing');
    // Last change at 2m15s: the 2-minute window holds no change from 4m15s on, firing 1 minute later.
    run(e, T0 + 2 * M + 15 * S, T0 + 4 * M, 15 * S, () => at(200));
    expect(find(e, 'LedgerNodeHeightStalled')).toBeUndefined();
    run(e, T0 + 4 * M + 15 * S, T0 + 5 * M, 15 * S, () => at(200));
    expect(find(e, 'LedgerNodeHeightStalled', 'a')).toMatchObject({ state: 'pending', activeAt: T0 + 4 * M + 15 * S });
    e.evaluate({ snapshot: at(200), exporter: quiet }, T0 + 5 * M + 15 * S);
    expect(find(e, 'LedgerNodeHeightStalled', 'a')).toMatchObject({
      state: 'firing',
      firingSince: T0 + 5 * M + 15 * S,
    });
    e.evaluate(
      { snapshot: snapshot([node('a', { up: false, height: undefined })]), exporter: quiet },
      T0 + 5 * M + 30 * S,
    );
    expect(find(e, 'LedgerNodeHeightStalled', 'a')?.keepFiringSince).toBe(T0 + 5 * M + 30 * S); // down explains it
  });

  // A node polled every `poll` (results landing 7 s after each evaluation tick): one rising by 100 at every poll,
  // one that stops at `stopAt`. Returns when the stuck one first fired and whether the rising one ever did.
  function slowPolls(poll: number, threshold: number | undefined, stopAt: number, until: number) {
    const rules: EngineOptions['rules'] = threshold === undefined ? {} : { LedgerNodeHeightStalled: { threshold } };
    const e = new AlertEngine(opts({ definitions: [findDefinition('LedgerNodeHeightStalled')!], rules }));
    const polled = (t: number) => 100 + 100 * Math.floor((t - T0 + 7 * S) / poll);
    let risingSeen = false;
    let stuckFiring: number | undefined;
    for (let t = T0; t <= until; t += 15 * S) {
      e.evaluate(
        {
          snapshot: snapshot([
            node('rising', { height: polled(t) }),
            node('stuck', { height: polled(Math.min(t, stopAt)) }),
          ]),
          exporter: quiet,
        },
        t,
      );
      if (find(e, 'LedgerNodeHeightStalled', 'rising')) risingSeen = true;
      if (stuckFiring === undefined && find(e, 'LedgerNodeHeightStalled', 'stuck')?.state === 'firing') stuckFiring = t;
    }
    return { risingSeen, stuckFiring };
  }

  it('LedgerNodeHeightStalled: a node polled every 5 min, rising at each poll, never fires (600 s)', () => {
    // 600 s is the least check-config accepts for a 5-minute node: two polls per window.
    const r = slowPolls(5 * M, 600, T0 + 30 * M, T0 + 60 * M);
    expect(r.risingSeen).toBe(false);
    // The stuck one's last change lands at 29m53s; 10 minutes without one, then `for` 1m.
    expect(r.stuckFiring).toBe(T0 + 40 * M + 60 * S);
  });

  it('LedgerNodeHeightStalled at 120 s: a node polled each minute stays quiet; a stuck one fires', () => {
    const r = slowPolls(M, undefined, T0 + 10 * M, T0 + 30 * M);
    expect(r.risingSeen).toBe(false);
    expect(r.stuckFiring).toBe(T0 + 12 * M + 60 * S);
  });

  it('LedgerNodeHeightStalled at 120 s pages an advancing 5-minute node (check-config refuses it)', () => {
    expect(slowPolls(5 * M, undefined, T0 + 60 * M, T0 + 60 * M).risingSeen).toBe(true);
  });

  it('LedgerNodeServerErrors counts 5xx increases over 5 minutes on supported probes', () => {
    const e = new AlertEngine(opts({ rules: { LedgerNodeServerErrors: { forMs: 0, keepFiringForMs: 0 } } }));
    const at = (count: number) =>
      snapshot([
        node('a', {
          probes: [
            {
              probe: 'health',
              supported: true,
              failures: zeroFailures({ http_5xx: count }),
              consecutiveFailures: 0,
              backingOff: false,
            },
          ],
        }),
      ]);
    run(e, T0, T0 + M, 15 * S, () => at(7)); // a counter that stands still is no increase
    expect(find(e, 'LedgerNodeServerErrors')).toBeUndefined();
    run(e, T0 + 75 * S, T0 + 2 * M, 15 * S, (t) => at(7 + (t - T0 - M) / (15 * S)));
    expect(find(e, 'LedgerNodeServerErrors', 'a')).toMatchObject({ state: 'firing', value: 4 });
    expect(find(e, 'LedgerNodeServerErrors', 'a')!.annotations.description).toContain(
      'answered 4 probes with HTTP 5xx',
    );
    run(e, T0 + 2 * M + 15 * S, T0 + 8 * M, 15 * S, () => at(11));
    expect(find(e, 'LedgerNodeServerErrors', 'a')!.state).toBe('resolved');
  });

  it('network alerts: degraded ratio, validator set shrunk against the hour, upgrade window', () => {
    const e = new AlertEngine(
      opts({ rules: { LedgerValidatorSetShrunk: { forMs: 0 }, LedgerMiningUpgradeApproaching: { forMs: 0 } } }),
    );
    const validators = (n: number) => ({
      list: Array.from({ length: n }, (_, i) => ({ address: `v${i}`, stakeTokens: 1 })),
      totalStakeTokens: n,
    });
    const mining = (left: number) => ({
      miners: 5,
      active: 5,
      rewardTokens: 1,
      upgradeHeight: 1000,
      upgraded: false,
      blocksUntilUpgrade: left,
    });
    const nodes = [node('a', { up: false }), node('b'), node('c')];
    e.evaluate(
      {
        snapshot: snapshot(nodes, [{ network: 'main', validators: validators(4), mining: mining(5000) }]),
        exporter: quiet,
      },
      T0,
    );
    e.evaluate(
      {
        snapshot: snapshot(nodes, [{ network: 'main', validators: validators(3), mining: mining(1200) }]),
        exporter: quiet,
      },
      T0 + M,
    );
    const byName = Object.fromEntries(e.active().map((i) => [i.alertname, i]));
    expect(byName.LedgerFleetDegraded?.annotations.description).toBe(
      'Only 66.67% of the configured nodes of network main are up (threshold 75%) for more than 2 minutes.',
    );
    expect(byName.LedgerValidatorSetShrunk).toMatchObject({
      value: 1,
      labels: { network: 'main', severity: 'warning' },
    });
    expect(byName.LedgerMiningUpgradeApproaching).toMatchObject({
      value: 1200,
      labels: { network: 'main', severity: 'info' },
    });
    expect(byName.LedgerNodeDown?.state).toBe('firing'); // down for exactly its 1 minute
    expect(byName.LedgerFleetDegraded?.state).toBe('pending');
  });

  it('exporter alerts carry the instance label and a probe label where Prometheus has one', () => {
    const e = new AlertEngine(
      opts({ rules: { LedgerExporterPollOverrun: { forMs: 0 }, LedgerAgentKeyRejected: { forMs: 0 } } }),
    );
    e.evaluate(
      {
        snapshot: snapshot([]),
        exporter: { pollOverruns: new Map([['health', 1]]), evidenceWriteErrors: 0, agentKeyValid: false },
      },
      T0,
    );
    e.evaluate(
      {
        snapshot: snapshot([]),
        exporter: { pollOverruns: new Map([['health', 3]]), evidenceWriteErrors: 0, agentKeyValid: false },
      },
      T0 + 15 * S,
    );
    expect(find(e, 'LedgerExporterPollOverrun')).toMatchObject({
      value: 2,
      labels: { probe: 'health', instance: 'exp-1' },
    });
    expect(find(e, 'LedgerExporterPollOverrun')!.annotations.summary).toBe(
      'Exporter exp-1 cannot keep up with its health polls',
    );
    expect(find(e, 'LedgerAgentKeyRejected')!.labels.instance).toBe('exp-1');
    expect(e.list().some((i) => i.alertname === 'LedgerExporterDown')).toBe(false);
  });

  it('an expression that throws keeps its instances and reports the error', () => {
    const e = new AlertEngine(opts({ rules: { LedgerNodeDown: { forMs: 0 } } }));
    e.evaluate({ snapshot: snapshot([node('a', { up: false })]), exporter: quiet }, T0);
    const broken = {
      nodes: [
        {
          name: 'a',
          network: 'main',
          get up(): boolean {
            throw new Error('boom');
          },
        } as unknown as NodeView,
      ],
      networks: [],
    };
    e.evaluate({ snapshot: broken, exporter: quiet }, T0 + 15 * S);
    expect(e.evaluationErrors().get('LedgerNodeDown')).toBe('boom');
    expect(find(e, 'LedgerNodeDown')?.state).toBe('firing');
  });
});
