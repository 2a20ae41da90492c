// Which nodes may serve a fan-out read of a network: the nodes of that network only (never another
// network's), up, with a known RPC namespace, and on the chain most of them are on: a node whose
// /health chain id or genesis differs from the others' answers for another chain. Pure.
import type { FleetSnapshot, NodeTarget, NodeView } from '../domain.js';

export interface ServingNode {
  name: string;
  target: NodeTarget;
  namespace: string;
  /** The node's height (for calls about its newest block). */
  height?: number;
}

const identity = (v: NodeView) => `${v.health?.chainId ?? ''}\n${v.health?.genesisHash ?? ''}`;

/**
 * The serving nodes per network, each list in name order (so an entity's hash picks the same node while the list
 * stays).
 */
export function servingNodes(
  fleet: FleetSnapshot,
  targets: ReadonlyMap<string, NodeTarget>,
): Map<string, ServingNode[]> {
  const byNetwork = new Map<string, NodeView[]>();
  for (const v of fleet.nodes) {
    if (!v.up) continue;
    let list = byNetwork.get(v.network);
    if (!list) byNetwork.set(v.network, (list = []));
    list.push(v);
  }
  const out = new Map<string, ServingNode[]>();
  for (const [network, views] of byNetwork) {
    const chain = majority(views.map(identity));
    const serving: ServingNode[] = [];
    for (const v of views) {
      const target = targets.get(v.name);
      // A node whose target moved to another network since the snapshot serves neither.
      if (!target || target.network !== network || identity(v) !== chain) continue;
      const namespace = v.namespace ?? (target.rpcNamespace === 'auto' ? undefined : target.rpcNamespace);
      if (namespace !== undefined) serving.push({ name: v.name, target, namespace, height: v.height });
    }
    serving.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    out.set(network, serving);
  }
  return out;
}

/** The most common value; a tie goes to the smallest, so every replica picks the same. */
function majority(values: string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best = '';
  let most = 0;
  for (const [v, n] of counts) if (n > most || (n === most && v < best)) [best, most] = [v, n];
  return best;
}
