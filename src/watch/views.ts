// The watch's view of each entry, from what the fan-out probes last read (FleetSnapshot.fanOut)
// and the fleet (heights, epochs): pure. A value not read, or whose last read failed, is absent.
// Snapshots come often (alerts, scrapes, pages, each fan-out round) and most often nothing the
// watch is built from changed since the last one: a WatchViews then hands out the same snapshot
// again, so every consumer shares one; otherwise it rebuilds only the entries whose inputs changed.
import {
  DEFAULT_DECIMALS,
  DEFAULT_EPOCH_BLOCKS,
  type EntityReadView,
  type FleetSnapshot,
  type NetworkSettings,
} from '../domain.js';
import { accountView, minerView, validatorView } from './entryViews.js';
import type { EntryInputs } from './inputs.js';
import type { WatchEntry, WatchSettings, WatchSnapshot, WatchedView } from './types.js';

/** The parts of the config the views read. */
export interface WatchViewConfig {
  networks: Readonly<Record<string, NetworkSettings>>;
  watch?: WatchSettings;
}

const OWN: Record<WatchEntry['kind'], string[]> = {
  validator: ['watchValidatorDetail'],
  miner: ['watchMinerInfo'],
  account: ['watchBalance', 'watchUnbonding'],
};
const NETWORK: Record<WatchEntry['kind'], string[]> = {
  validator: ['watchValidatorSet', 'watchBlockRewards'],
  miner: [],
  account: [],
};

type Reads = ReadonlyMap<string, ReadonlyMap<string, EntityReadView>>;

/** What an entry's view was built from: reads (by identity: a changed read is a new copy), then scalars. */
type Signature = ReadonlyArray<unknown>;

interface Kept {
  signature: Signature;
  view: WatchedView;
}

/** Builds watch snapshots, rebuilding an entry's view only when what it is built from changed. */
export class WatchViews {
  private kept = new WeakMap<WatchEntry, Kept>();
  private readonly indexed = new WeakMap<readonly EntityReadView[], Map<string, EntityReadView>>();
  private last: { signature: Signature; snapshot: WatchSnapshot } | undefined;

  build(config: WatchViewConfig, fleet: FleetSnapshot): WatchSnapshot | undefined {
    if (!config.watch) return undefined;
    const signature = snapshotSignature(config, fleet);
    if (this.last && sameSignature(this.last.signature, signature)) return this.last.snapshot;
    const snapshot = this.assemble(config.watch, config, fleet);
    this.last = { signature, snapshot };
    return snapshot;
  }

  private assemble(
    w: NonNullable<WatchViewConfig['watch']>,
    config: WatchViewConfig,
    fleet: FleetSnapshot,
  ): WatchSnapshot {
    const reads = this.index(fleet);
    const networks = new Map(fleet.networks.map((n) => [n.network, n]));
    const nodes = new Map(fleet.nodes.map((n) => [n.name, n]));
    const out: WatchSnapshot = { validators: [], miners: [], accounts: [] };
    for (const entry of w.entries) {
      const network = networks.get(entry.network);
      const settings = config.networks[entry.network];
      const epoch = network?.sourceNode === undefined ? undefined : nodes.get(network.sourceNode)?.health?.epoch;
      const own = OWN[entry.kind].map((p) => reads.get(p)?.get(entry.name));
      const shared = NETWORK[entry.kind].map((p) => reads.get(p)?.get(entry.network));
      const decimals = settings?.decimals ?? DEFAULT_DECIMALS;
      const epochBlocks = settings?.epochBlocks ?? DEFAULT_EPOCH_BLOCKS;
      // Only what the entry's kind reads from the network: a new height rebuilds accounts alone.
      const fromNetwork = entry.kind === 'miner' ? epoch : entry.kind === 'account' ? network?.heightMax : undefined;
      const signature = [...own, ...shared, decimals, epochBlocks, w.intervalMs, fromNetwork];
      let k = this.kept.get(entry);
      if (!k || !sameSignature(k.signature, signature)) {
        const inputs: EntryInputs = {
          entry,
          network,
          epoch,
          decimals,
          epochBlocks,
          own: Object.fromEntries(OWN[entry.kind].map((p, i) => [p, own[i]])),
          networkReads: Object.fromEntries(NETWORK[entry.kind].map((p, i) => [p, shared[i]])),
          intervalMs: w.intervalMs,
        };
        k = { signature, view: viewOf(inputs) };
        this.kept.set(entry, k);
      }
      const v = k.view;
      if (v.kind === 'validator') out.validators.push(v);
      else if (v.kind === 'miner') out.miners.push(v);
      else out.accounts.push(v);
    }
    return out;
  }

  /** Each probe's reads by entity key; the lists are kept by the fan-out while no read changes. */
  private index(fleet: FleetSnapshot): Reads {
    const out = new Map<string, ReadonlyMap<string, EntityReadView>>();
    for (const [probe, list] of fleet.fanOut ?? []) {
      let byKey = this.indexed.get(list);
      if (!byKey) this.indexed.set(list, (byKey = new Map(list.map((r) => [r.entity.key, r]))));
      out.set(probe, byKey);
    }
    return out;
  }
}

function viewOf(inputs: EntryInputs): WatchedView {
  const kind = inputs.entry.kind;
  return kind === 'validator' ? validatorView(inputs) : kind === 'miner' ? minerView(inputs) : accountView(inputs);
}

/**
 * Everything any entry's view reads: the config (a reload makes a new one), the fan-out reads (one
 * map while no read changed) and each network's height and epoch (its source node's /health).
 */
function snapshotSignature(config: WatchViewConfig, fleet: FleetSnapshot): Signature {
  const sources = new Map<string, number | undefined>();
  for (const n of fleet.networks) if (n.sourceNode !== undefined) sources.set(n.sourceNode, undefined);
  for (const n of fleet.nodes) if (sources.has(n.name)) sources.set(n.name, n.health?.epoch);
  const out: unknown[] = [config.watch, config.networks, fleet.fanOut];
  for (const n of fleet.networks)
    out.push(n.network, n.heightMax, n.sourceNode, n.sourceNode === undefined ? undefined : sources.get(n.sourceNode));
  return out;
}

function sameSignature(a: Signature, b: Signature): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

/** One snapshot's watch, built from scratch (tests, and callers that keep no WatchViews). */
export function buildWatchSnapshot(config: WatchViewConfig, fleet: FleetSnapshot): WatchSnapshot | undefined {
  return new WatchViews().build(config, fleet);
}
