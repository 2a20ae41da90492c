// The probe table: every probe has one descriptor, what a success stores a failure clears, and
// the metrics a descriptor names are the contract's.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROBE_NAMES, type NodeValues } from '../../src/domain.js';
import { SHARED_FAMILIES } from '../../src/metrics/fleetText.js';
import { nodeBudget } from '../../src/probes/budget.js';
import { BUILT_IN_PROBES as PROBES, type BuiltInProbeData as ProbeData } from '../../src/probes/index.js';
import { applyProbeData } from '../../src/probes/registry.js';
import { validatorsProbe } from '../../src/probes/validators.js';

// A copy of /work/shared/spec/exporter-contract.md carried by the repository.
const contract = readFileSync(new URL('../fixtures/spec/exporter-contract.md', import.meta.url), 'utf8');

const samples: ProbeData[] = [
  { probe: 'health', value: { status: 'ok', height: 5, version: '1.0.0', uptimeSecs: 10 } },
  {
    probe: 'metrics',
    value: [{ name: 'x', type: 'gauge', samples: [{ name: 'x', labels: {}, value: 1 }] }],
    droppedSamples: 0,
  },
  { probe: 'blockNumber', value: 42 },
  {
    probe: 'miningStats',
    value: { totalMiners: 2, activeMiners: 1, currentBlockReward: 10n, miningUpgradeHeight: 100, upgraded: false },
  },
  { probe: 'validators', value: [{ address: 'v1', stake: 5n }] },
];

describe('probe descriptors', () => {
  it('one per probe name', () => {
    expect(Object.keys(PROBES).sort()).toEqual([...PROBE_NAMES].sort());
    expect(samples.map((s) => s.probe).sort()).toEqual([...PROBE_NAMES].sort());
  });

  it('a failure clears exactly what a success stored', () => {
    for (const data of samples) {
      const node: NodeValues = { upstreamVersion: 0 };
      applyProbeData(node, data, 1_000);
      const stored = Object.entries(node).filter(
        ([k, v]) => v !== undefined && k !== 'upstreamVersion' && k !== 'process' && k !== 'upstreamDropped',
      );
      expect(stored.length, data.probe).toBe(1);
      PROBES[data.probe].clear(node);
      expect(node[stored[0]![0] as keyof NodeValues], data.probe).toBeUndefined();
    }
  });

  it('an answer equal to what is held keeps the validators and mining stats; a different one replaces them', () => {
    const node: NodeValues = { upstreamVersion: 0 };
    const validators = () => [
      { address: 'aa', stake: 5n, weight: 1, agentScore: 7 },
      { address: 'bb', stake: 6n },
    ];
    const mining = () => ({
      totalMiners: 2,
      activeMiners: 1,
      currentBlockReward: 10n,
      miningUpgradeHeight: 100,
      upgraded: false,
    });
    applyProbeData(node, { probe: 'validators', value: validators() }, 1_000);
    applyProbeData(node, { probe: 'miningStats', value: mining() }, 1_000);
    const [heldList, heldMining] = [node.validators, node.mining];
    applyProbeData(node, { probe: 'validators', value: validators() }, 2_000);
    applyProbeData(node, { probe: 'miningStats', value: mining() }, 2_000);
    expect(node.validators).toBe(heldList);
    expect(node.mining).toBe(heldMining);
    const changes: Array<(v: ReturnType<typeof validators>) => void> = [
      (v) => (v[1]!.stake = 7n),
      (v) => (v[0]!.address = 'cc'),
      (v) => (v[0]!.weight = undefined),
      (v) => (v[1]!.agentScore = 0),
      (v) => v.pop(),
      (v) => v.reverse(),
    ];
    for (const change of changes) {
      const next = validators();
      change(next);
      applyProbeData(node, { probe: 'validators', value: next }, 3_000);
      expect(node.validators).toBe(next);
      applyProbeData(node, { probe: 'validators', value: validators() }, 3_000);
    }
    for (const change of [
      { activeMiners: 2 },
      { currentBlockReward: 11n },
      { upgraded: true },
      { miningUpgradeHeight: 101 },
      { totalMiners: 3 },
    ]) {
      const next = { ...mining(), ...change };
      applyProbeData(node, { probe: 'miningStats', value: next }, 4_000);
      expect(node.mining).toBe(next);
    }
  });

  it("validators answers are read against the prober's last list; equal answers share one list", () => {
    const ctx = { budget: nodeBudget({ maxUpstreamSeries: 100 }) };
    const other = { budget: nodeBudget({ maxUpstreamSeries: 100 }) };
    const answer = () => [
      { address: '0xAA', stake: '5', weight: 1 },
      { address: 'bb', stake: 6 },
    ];
    const first = validatorsProbe.parse(answer(), ctx).value;
    expect(first).toEqual([
      { address: 'aa', stake: 5n, weight: 1, agentScore: undefined },
      { address: 'bb', stake: 6n, weight: undefined, agentScore: undefined },
    ]);
    expect(validatorsProbe.parse(answer(), ctx).value).toBe(first);
    // One list per set, not per node (validatorLists.ts); a different set is its own list.
    expect(validatorsProbe.parse(answer(), other).value).toBe(first);
    expect(validatorsProbe.parse([answer()[0]], other).value).toEqual([first[0]]);
    const changed = validatorsProbe.parse([answer()[0], { address: 'bb', stake: 7 }], ctx).value;
    expect(changed).toEqual([first[0], { ...first[1], stake: 7n }]);
    expect(validatorsProbe.parse([answer()[0], { address: 'bb', stake: 7 }], ctx).value).toBe(changed);
  });

  it('health notices a new process by version or start time', () => {
    const node: NodeValues = { upstreamVersion: 0 };
    expect(applyProbeData(node, { probe: 'health', value: { version: '1', uptimeSecs: 100 } }, 200_000)).toBe(false);
    expect(applyProbeData(node, { probe: 'health', value: { version: '1', uptimeSecs: 110 } }, 210_000)).toBe(false);
    expect(applyProbeData(node, { probe: 'health', value: { version: '2', uptimeSecs: 120 } }, 220_000)).toBe(true);
    expect(applyProbeData(node, { probe: 'health', value: { version: '2', uptimeSecs: 1 } }, 230_000)).toBe(true);
  });

  it('names only metrics of the contract', () => {
    for (const [probe, d] of Object.entries(PROBES)) {
      for (const { name } of d.metrics) expect(contract, `${probe}: ${name}`).toContain(name);
    }
  });

  it('with the shared families, renders every fleet family of the contract exactly once', () => {
    const rendered = [...SHARED_FAMILIES, ...Object.values(PROBES).flatMap((d) => d.metrics.map((f) => f.name))];
    expect(new Set(rendered).size).toBe(rendered.length);
    const fleet = new Set(contract.match(/\bledger_(node|fleet|mining|validators?|probe)_[a-z_]+/g));
    expect([...fleet].filter((name) => !rendered.includes(name))).toEqual([]);
  });
});
