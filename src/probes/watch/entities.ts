// The entities the watch's fan-out probes read, made once per accepted `watch:` section (so each
// entity's request is built once): one per watched entry of a kind (labels network, name and the
// kind = address), and one per network with watched validators (its set and newest rewards).
import type { FanOutEntity } from '../../domain.js';
import type { FanOutConfig } from '../types.js';
import type { WatchKind, WatchSettings } from '../../watch/types.js';

interface Lists {
  byKind: Record<WatchKind, FanOutEntity[]>;
  validatorNetworks: FanOutEntity[];
}

const made = new WeakMap<WatchSettings, Lists>();

function listsOf(w: WatchSettings): Lists {
  let l = made.get(w);
  if (l) return l;
  l = { byKind: { validator: [], miner: [], account: [] }, validatorNetworks: [] };
  const networks = new Set<string>();
  for (const e of w.entries) {
    l.byKind[e.kind].push({
      key: e.name,
      network: e.network,
      label: e.kind,
      id: e.address,
      labels: { name: e.name },
      params: [e.address],
    });
    if (e.kind === 'validator') networks.add(e.network);
  }
  for (const network of [...networks].sort())
    l.validatorNetworks.push({ key: network, network, label: 'network', id: network, params: [] });
  made.set(w, l);
  return l;
}

/** The watched entries of a kind, as fan-out entities. */
export const watchedOf =
  (kind: WatchKind) =>
  (config: FanOutConfig): readonly FanOutEntity[] =>
    config.watch ? listsOf(config.watch).byKind[kind] : [];

/** One entity per network with watched validators. */
export const validatorNetworks = (config: FanOutConfig): readonly FanOutEntity[] =>
  config.watch ? listsOf(config.watch).validatorNetworks : [];

/** How often the watch reads. */
export const watchInterval = (config: FanOutConfig): number => config.watch?.intervalMs ?? 30_000;
