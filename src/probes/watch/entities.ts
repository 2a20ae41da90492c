// The entities the watch's fan-out probes read, made once per `watch:` section as written (so each
// entity's request is built once): one per watched entry of a kind (labels network, name and the
// kind = address), and one per network with entries of a kind (e.g. its validator set). Kept by
// the section's content, not its identity: a copy of the same section finds the same entities.
import type { FanOutEntity } from '../../domain.js';
import type { FanOutConfig } from '../types.js';
import type { WatchKind, WatchSettings } from '../../watch/types.js';

interface Lists {
  byKind: Map<WatchKind, FanOutEntity[]>;
  networksByKind: Map<WatchKind, FanOutEntity[]>;
  /** One entity per network (shared by every kind's list), and the lists of several kinds by their key. */
  networkEntities: Map<string, FanOutEntity>;
  unions: Map<string, FanOutEntity[]>;
}

/** The last section's lists: found again by identity, else by content (a reload that changed nothing). */
let last: { settings: WatchSettings; key: string; lists: Lists } | undefined;

const contentKey = (w: WatchSettings): string =>
  w.entries.map((e) => `${e.kind}\u0000${e.name}\u0000${e.network}\u0000${e.address}`).join('\u0001');

function listsOf(w: WatchSettings): Lists {
  if (last?.settings === w) return last.lists;
  const key = contentKey(w);
  if (last?.key === key) {
    last.settings = w;
    return last.lists;
  }
  const lists: Lists = { byKind: new Map(), networksByKind: new Map(), networkEntities: new Map(), unions: new Map() };
  const networks = new Map<WatchKind, Set<string>>();
  for (const e of w.entries) {
    let list = lists.byKind.get(e.kind);
    if (!list) lists.byKind.set(e.kind, (list = []));
    list.push({
      key: e.name,
      network: e.network,
      label: e.kind,
      id: e.address,
      labels: { name: e.name },
      params: [e.address],
    });
    let nets = networks.get(e.kind);
    if (!nets) networks.set(e.kind, (nets = new Set()));
    nets.add(e.network);
  }
  const entityOf = (network: string): FanOutEntity => {
    let e = lists.networkEntities.get(network);
    if (!e)
      lists.networkEntities.set(network, (e = { key: network, network, label: 'network', id: network, params: [] }));
    return e;
  };
  for (const [kind, nets] of networks) lists.networksByKind.set(kind, [...nets].sort().map(entityOf));
  last = { settings: w, key, lists };
  return lists;
}

/** The watched entries of a kind, as fan-out entities. */
export const watchedOf =
  (kind: WatchKind) =>
  (config: FanOutConfig): readonly FanOutEntity[] =>
    config.watch ? (listsOf(config.watch).byKind.get(kind) ?? []) : [];

/** One entity per network with watched entries of a kind. */
export const networksOf =
  (kind: WatchKind) =>
  (config: FanOutConfig): readonly FanOutEntity[] =>
    config.watch ? (listsOf(config.watch).networksByKind.get(kind) ?? []) : [];

/** Kinds that read a network read of another kind too (kinds/registry.ts), by the read's probe name. */
const sharers = new Map<string, Set<WatchKind>>();

/** `kind` reads the network read `probe` (declared by another kind) too: its networks are read as well. */
export function shareNetworkRead(probe: string, kind: WatchKind): void {
  let set = sharers.get(probe);
  if (!set) sharers.set(probe, (set = new Set()));
  set.add(kind);
}

export function unshareNetworkRead(probe: string, kind: WatchKind): void {
  sharers.get(probe)?.delete(kind);
}

/**
 * One entity per network with entries of `owner` or of a kind sharing the read `probe`: a network
 * with validators and delegators is read once.
 */
export const sharedNetworks =
  (probe: string, owner: WatchKind) =>
  (config: FanOutConfig): readonly FanOutEntity[] => {
    if (!config.watch) return [];
    const lists = listsOf(config.watch);
    const kinds = [owner, ...(sharers.get(probe) ?? [])];
    if (kinds.length === 1) return lists.networksByKind.get(owner) ?? [];
    const key = kinds.join('\u0000');
    let union = lists.unions.get(key);
    if (!union) {
      const nets = new Set(kinds.flatMap((k) => (lists.networksByKind.get(k) ?? []).map((e) => e.network)));
      lists.unions.set(key, (union = [...nets].sort().map((n) => lists.networkEntities.get(n)!)));
    }
    return union;
  };

/** How often the watch reads. */
export const watchInterval = (config: FanOutConfig): number => config.watch?.intervalMs ?? 30_000;
