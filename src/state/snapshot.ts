// Pure aggregation: node states in, a FleetSnapshot out (per node, per network). The metrics
// view and the status page render snapshots; nothing here does I/O or reads the clock.
import { DEFAULT_DECIMALS, type FailureReason, type HealthData, type NetworkSettings, type ProbeName } from '../domain.js';
import { toTokens } from '../probe/parse.js';
import { livenessProbes, type NodeState } from './fleetState.js';

export interface ProbeView {
  probe: ProbeName;
  supported: boolean;
  /** Undefined until the probe first ran. */
  success?: boolean;
  durationSeconds?: number;
  lastSuccessSeconds?: number;
  failures: Record<FailureReason, number>;
  consecutiveFailures: number;
  backingOff: boolean;
}

export interface NodeView {
  name: string;
  network: string;
  labels: Record<string, string>;
  namespace?: string;
  up: boolean;
  health?: HealthData;
  /** From /health, else from blockNumber. */
  height?: number;
  lagBlocks?: number;
  validatorsCount?: number;
  minersActive?: number;
  probes: ProbeView[];
}

export interface ValidatorView {
  address: string;
  stakeTokens: number;
  weight?: number;
  agentScore?: number;
}

export interface NetworkView {
  network: string;
  decimals: number;
  nodes: number;
  nodesUp: number;
  heightMax?: number;
  heightMin?: number;
  versions: number;
  /** Node whose chain values (validators, mining) are shown: the node up with the highest height. */
  sourceNode?: string;
  validators?: { list: ValidatorView[]; totalStakeTokens: number };
  /** 1 when nodes up disagree on the validator set; undefined when fewer than one reports. */
  validatorSetMismatch?: 0 | 1;
  mining?: {
    miners: number;
    active: number;
    rewardTokens: number;
    upgradeHeight: number;
    upgraded: boolean;
    blocksUntilUpgrade: number;
  };
}

export interface FleetSnapshot {
  nodes: NodeView[];
  networks: NetworkView[];
}

/** up: the last health or blockNumber probe answered validly (metrics alone when neither is configured). */
function isUp(n: NodeState): boolean {
  return livenessProbes([...n.probes.keys()]).some((p) => n.probes.get(p)?.lastRun?.ok ?? false);
}

function probeView(probe: ProbeName, n: NodeState, now: number): ProbeView {
  const s = n.probes.get(probe)!;
  return {
    probe,
    supported: s.supported,
    success: s.lastRun ? s.lastRun.ok : undefined,
    durationSeconds: s.lastRun ? s.lastRun.durationMs / 1000 : undefined,
    lastSuccessSeconds: s.lastSuccessAt === undefined ? undefined : s.lastSuccessAt / 1000,
    failures: s.failures,
    consecutiveFailures: s.consecutiveFailures,
    backingOff: s.notBefore !== undefined && s.notBefore > now,
  };
}

export function buildSnapshot(states: Iterable<NodeState>, networks: Record<string, NetworkSettings>, now: number): FleetSnapshot {
  const byNetwork = new Map<string, { states: NodeState[]; views: NodeView[] }>();
  const nodes: NodeView[] = [];
  for (const n of states) {
    const up = isUp(n);
    const view: NodeView = {
      name: n.target.name,
      network: n.target.network,
      labels: n.target.labels,
      namespace: n.namespace,
      up,
      health: n.health,
      height: up ? (n.health?.height ?? n.blockNumber) : undefined,
      validatorsCount: n.validators?.length,
      minersActive: n.mining?.activeMiners,
      probes: n.target.probes.map((p) => probeView(p, n, now)),
    };
    nodes.push(view);
    let g = byNetwork.get(view.network);
    if (!g) byNetwork.set(view.network, (g = { states: [], views: [] }));
    g.states.push(n);
    g.views.push(view);
  }

  const out: NetworkView[] = [];
  for (const [network, g] of [...byNetwork].sort(([a], [b]) => a.localeCompare(b))) {
    const decimals = networks[network]?.decimals ?? DEFAULT_DECIMALS;
    const upViews = g.views.filter((v) => v.up);
    const heights = upViews.map((v) => v.height).filter((h): h is number => h !== undefined);
    const heightMax = heights.length ? Math.max(...heights) : undefined;
    for (const v of g.views) {
      if (v.height !== undefined && heightMax !== undefined) v.lagBlocks = heightMax - v.height;
    }
    const versions = new Set(upViews.map((v) => v.health?.version).filter((x) => x !== undefined));
    // Chain values from the highest node up that reports them.
    const ranked = g.states
      .map((s, i) => ({ s, v: g.views[i]! }))
      .filter(({ v }) => v.up)
      .sort((a, b) => (b.v.height ?? -1) - (a.v.height ?? -1) || a.v.name.localeCompare(b.v.name));
    const valSrc = ranked.find(({ s }) => s.validators);
    const minSrc = ranked.find(({ s }) => s.mining);
    const net: NetworkView = {
      network,
      decimals,
      nodes: g.views.length,
      nodesUp: upViews.length,
      heightMax,
      heightMin: heights.length ? Math.min(...heights) : undefined,
      versions: versions.size,
      sourceNode: ranked[0]?.v.name,
    };
    if (valSrc?.s.validators) {
      let total = 0n;
      const list = valSrc.s.validators.map((v) => {
        total += v.stake;
        return { address: v.address, stakeTokens: toTokens(v.stake, decimals), weight: v.weight, agentScore: v.agentScore };
      });
      net.validators = { list, totalStakeTokens: toTokens(total, decimals) };
      const sets = ranked.filter(({ s }) => s.validators).map(({ s }) => setKey(s));
      net.validatorSetMismatch = sets.every((k) => k === sets[0]) ? 0 : 1;
    }
    if (minSrc?.s.mining) {
      const m = minSrc.s.mining;
      const height = minSrc.v.height ?? 0;
      net.mining = {
        miners: m.totalMiners,
        active: m.activeMiners,
        rewardTokens: toTokens(m.currentBlockReward, decimals),
        upgradeHeight: m.miningUpgradeHeight,
        upgraded: m.upgraded,
        blocksUntilUpgrade: Math.max(0, m.miningUpgradeHeight - height),
      };
    }
    out.push(net);
  }
  return { nodes, networks: out };
}

function setKey(s: NodeState): string {
  return (s.validators ?? [])
    .map((v) => v.address)
    .sort()
    .join(',');
}
