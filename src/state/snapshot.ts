// Pure aggregation: node states in, a FleetSnapshot out (per node, per network). The metrics
// view and the status page render snapshots; nothing here does I/O or reads the clock.
import { DEFAULT_DECIMALS, type FleetSnapshot, type NetworkSettings, type NetworkView, type NodeView, type ProbeName, type ProbeView } from '../domain.js';
import { toTokens } from '../probe/parse.js';
import { isUp, nodeHeight, type NodeState } from './fleetState.js';

// The view types are domain types; re-exported for the readers of snapshots.
export type { FleetSnapshot, NetworkView, NodeView, ProbeView, ValidatorView } from '../domain.js';

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
    backingOff: isBackingOff(s, now),
  };
}

export function buildSnapshot(states: Iterable<NodeState>, networks: Record<string, NetworkSettings>, now: number): FleetSnapshot {
  const byNetwork = new Map<string, NetworkGroup>();
  const nodes: NodeView[] = [];
  for (const n of states) {
    // A copy per snapshot: networkView sets its lag, and snapshots already handed out stay as they were.
    const view = { ...nodeView(n, now) };
    nodes.push(view);
    let g = byNetwork.get(view.network);
    if (!g) byNetwork.set(view.network, (g = { states: [], views: [] }));
    g.states.push(n);
    g.views.push(view);
  }
  const out = [...byNetwork]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([network, g]) => networkView(network, g, networks[network]?.decimals ?? DEFAULT_DECIMALS));
  return { nodes, networks: out };
}

interface NetworkGroup {
  states: NodeState[];
  views: NodeView[];
}

/** Each node's view as of its revision: rebuilt only after a result or a reload touched the node. */
const views = new WeakMap<NodeState, NodeView>();

/**
 * The node's view at `now` (no lagBlocks: that needs the network). Shared and never modified:
 * callers that add to it copy it. Backoff ends with time alone, so a probe whose flag changed
 * gets a new ProbeView.
 */
export function nodeView(n: NodeState, now: number): NodeView {
  let v = views.get(n);
  if (v === undefined || v.revision !== n.revision) {
    v = buildNodeView(n, now);
    views.set(n, v);
  }
  let probes = v.probes;
  v.probes.forEach((p, j) => {
    const off = isBackingOff(n.probes.get(p.probe), now);
    if (off === p.backingOff) return;
    if (probes === v.probes) probes = [...probes];
    probes[j] = { ...p, backingOff: off };
  });
  return probes === v.probes ? v : { ...v, probes };
}

const isBackingOff = (s: { notBefore?: number } | undefined, now: number) => s?.notBefore !== undefined && s.notBefore > now;

function buildNodeView(n: NodeState, now: number): NodeView {
  const up = isUp(n);
  // The probe values alone: the target (URL, header secrets) and the bookkeeping stay behind.
  const { target: _target, probes: _probes, namespace: _ns, lastSuccessAt: _last, firstRoundDone: _done, ...values } = n;
  return {
    name: n.target.name,
    revision: n.revision,
    network: n.target.network,
    labels: n.target.labels,
    namespace: n.namespace,
    up,
    health: n.health,
    height: nodeHeight(n, up),
    validatorsCount: n.validators?.length,
    minersActive: n.mining?.activeMiners,
    probes: n.target.probes.map((p) => probeView(p, n, now)),
    values,
  };
}

/** Network totals; sets each node's lag against the network's highest node up. */
function networkView(network: string, g: NetworkGroup, decimals: number): NetworkView {
  const upViews = g.views.filter((v) => v.up);
  const heights = upViews.map((v) => v.height).filter((h): h is number => h !== undefined);
  const heightMax = heights.length ? Math.max(...heights) : undefined;
  for (const v of g.views) {
    if (v.height !== undefined && heightMax !== undefined) v.lagBlocks = heightMax - v.height;
  }
  const versions = new Set(upViews.map((v) => v.health?.version).filter((x) => x !== undefined));
  // Chain values from the highest node up that reports them (ties: by name).
  const up = g.states.map((s, i) => ({ s, v: g.views[i]! })).filter(({ v }) => v.up);
  const source = highest(up, () => true);
  const net: NetworkView = {
    network,
    decimals,
    nodes: g.views.length,
    nodesUp: upViews.length,
    heightMax,
    heightMin: heights.length ? Math.min(...heights) : undefined,
    versions: versions.size,
    sourceNode: source?.v.name,
  };
  const reporting = up.filter(({ s }) => s.validators);
  const first = highest(reporting, () => true);
  if (first) addValidators(net, first.s, reporting.map(({ s }) => s));
  const minSrc = highest(up, ({ s }) => s.mining !== undefined);
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
  return net;
}

type Ranked = { s: NodeState; v: NodeView };

/** The first of `list` matching `ok` by height (highest first), then name: a scan, not a sort (every snapshot). */
function highest(list: Ranked[], ok: (r: Ranked) => boolean): Ranked | undefined {
  let best: Ranked | undefined;
  for (const r of list) {
    if (!ok(r)) continue;
    if (!best) best = r;
    else {
      const d = (r.v.height ?? -1) - (best.v.height ?? -1);
      if (d > 0 || (d === 0 && r.v.name.localeCompare(best.v.name) < 0)) best = r;
    }
  }
  return best;
}

/** The validator set of the highest reporting node, and whether the reporting nodes disagree. */
function addValidators(net: NetworkView, source: NodeState, reporting: NodeState[]): void {
  const src = source.validators;
  if (!src) return;
  let total = 0n;
  const list = src.map((v) => {
    total += v.stake;
    return { address: v.address, stakeTokens: toTokens(v.stake, net.decimals), weight: v.weight, agentScore: v.agentScore };
  });
  net.validators = { list, totalStakeTokens: toTokens(total, net.decimals) };
  const first = setKey(source);
  net.validatorSetMismatch = reporting.every((s) => setKey(s) === first) ? 0 : 1;
}

/** A validator set's identity, kept per answer (each node's list is compared at every snapshot). */
const setKeys = new WeakMap<object, string>();

function setKey(s: NodeState): string {
  const list = s.validators ?? [];
  let key = setKeys.get(list);
  if (key === undefined) {
    key = list
      .map((v) => v.address)
      .sort()
      .join(',');
    setKeys.set(list, key);
  }
  return key;
}
