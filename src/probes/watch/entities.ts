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
  const lists: Lists = { byKind: new Map(), networksByKind: new Map() };
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
  for (const [kind, nets] of networks)
    lists.networksByKind.set(
      kind,
      [...nets].sort().map((network) => ({ key: network, network, label: 'network', id: network, params: [] })),
    );
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

/** One entity per network with watched validators. */
export const validatorNetworks = networksOf('validator');

/** How often the watch reads. */
export const watchInterval = (config: FanOutConfig): number => config.watch?.intervalMs ?? 30_000;
