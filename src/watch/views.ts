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
import type { EntryInputs } from './inputs.js';
import { watchKind, watchKindsVersion } from './kinds/registry.js';
import type { WatchEntry, WatchSettings, WatchSnapshot, WatchedEntryView } from './types.js';

/** The parts of the config the views read. */
export interface WatchViewConfig {
  networks: Readonly<Record<string, NetworkSettings>>;
  watch?: WatchSettings;
}

type Reads = ReadonlyMap<string, ReadonlyMap<string, EntityReadView>>;
/** Each kind's runtime data by entry name, by kind. */
export type Locals = ReadonlyMap<string, ReadonlyMap<string, unknown>>;
const NO_LOCALS: Locals = new Map();

/** What an entry's view was built from: reads (by identity: a changed read is a new copy), then scalars. */
type Signature = ReadonlyArray<unknown>;

interface Kept {
  signature: Signature;
  view: WatchedEntryView;
}

/** An entry's own settings as one string: a reload that changes one rebuilds its view. */
const entryContent = (e: WatchEntry): string => JSON.stringify(e);

/** Builds watch snapshots, rebuilding an entry's view only when what it is built from changed. */
export class WatchViews {
  /** By entry name (unique across watch:); the entry's content is part of the signature. */
  private kept = new Map<string, Kept>();
  /** Each probe's reads by entity key, kept while the probe's list is the same. */
  private readonly indexed = new Map<string, { list: readonly EntityReadView[]; byKey: Map<string, EntityReadView> }>();
  private last: { signature: Signature; snapshot: WatchSnapshot } | undefined;

  /** `locals`: each kind's runtime data by entry name (WatchKindRuntime.local), by kind. */
  build(config: WatchViewConfig, fleet: FleetSnapshot, locals: Locals = NO_LOCALS): WatchSnapshot | undefined {
    if (!config.watch) return undefined;
    const signature = snapshotSignature(config, fleet);
    for (const [kind, local] of locals) signature.push(kind, local);
    if (this.last && sameSignature(this.last.signature, signature)) return this.last.snapshot;
    const snapshot = this.assemble(config.watch, config, fleet, locals);
    this.last = { signature, snapshot };
    return snapshot;
  }

  private assemble(
    w: NonNullable<WatchViewConfig['watch']>,
    config: WatchViewConfig,
    fleet: FleetSnapshot,
    locals: Locals,
  ): WatchSnapshot {
    const reads = this.index(fleet);
    const content = this.contentOf(w);
    const networks = new Map(fleet.networks.map((n) => [n.network, n]));
    const nodes = new Map(fleet.nodes.map((n) => [n.name, n]));
    const out: WatchSnapshot = { entries: [] };
    const names = new Set<string>();
    for (const entry of w.entries) {
      const kind = watchKind(entry.kind);
      const ownNames = Object.keys(kind.reads);
      const networkNames = Object.keys(kind.networkReads ?? {});
      const network = networks.get(entry.network);
      const settings = config.networks[entry.network];
      const epoch = network?.sourceNode === undefined ? undefined : nodes.get(network.sourceNode)?.health?.epoch;
      const own = ownNames.map((p) => reads.get(p)?.get(entry.name));
      const shared = networkNames.map((p) => reads.get(p)?.get(entry.network));
      const itemKeys = kind.itemKeys?.(entry) ?? {};
      const itemNames = Object.keys(kind.itemReads ?? {});
      const items = itemNames.map((p) => (itemKeys[p] ?? []).map((key) => reads.get(p)?.get(key)));
      const local = locals.get(entry.kind)?.get(entry.name);
      const decimals = settings?.decimals ?? DEFAULT_DECIMALS;
      const epochBlocks = settings?.epochBlocks ?? DEFAULT_EPOCH_BLOCKS;
      // Only what the entry's kind reads from the network: a new height rebuilds accounts alone.
      const fromNetwork =
        kind.fromNetwork === 'epoch' ? epoch : kind.fromNetwork === 'height' ? network?.heightMax : undefined;
      const signature = [
        kind,
        content.get(entry),
        ...own,
        ...shared,
        ...items.flat(),
        local,
        decimals,
        epochBlocks,
        w.intervalMs,
        fromNetwork,
      ];
      names.add(entry.name);
      let k = this.kept.get(entry.name);
      if (!k || !sameSignature(k.signature, signature)) {
        const inputs: EntryInputs = {
          entry,
          network,
          epoch,
          decimals,
          epochBlocks,
          own: Object.fromEntries(ownNames.map((p, i) => [p, own[i]])),
          networkReads: Object.fromEntries(networkNames.map((p, i) => [p, shared[i]])),
          ...(itemNames.length > 0 && { items: Object.fromEntries(itemNames.map((p, i) => [p, items[i]!])) }),
          ...(local !== undefined && { local }),
          intervalMs: w.intervalMs,
        };
        k = { signature, view: kind.view(inputs) };
        this.kept.set(entry.name, k);
      }
      out.entries.push(k.view);
    }
    for (const name of this.kept.keys()) if (!names.has(name)) this.kept.delete(name);
    return out;
  }

  /** Each probe's reads by entity key; the lists are kept by the fan-out while no read changes. */
  private index(fleet: FleetSnapshot): Reads {
    const out = new Map<string, ReadonlyMap<string, EntityReadView>>();
    for (const [probe, list] of fleet.fanOut ?? []) {
      let kept = this.indexed.get(probe);
      if (kept?.list !== list)
        this.indexed.set(probe, (kept = { list, byKey: new Map(list.map((r) => [r.entity.key, r])) }));
      out.set(probe, kept.byKey);
    }
    return out;
  }

  private contents: { settings: WatchSettings; byEntry: Map<WatchEntry, string> } | undefined;

  /** Each entry's content string, made once per section (the same section object between reloads). */
  private contentOf(w: WatchSettings): Map<WatchEntry, string> {
    if (this.contents?.settings !== w)
      this.contents = { settings: w, byEntry: new Map(w.entries.map((e) => [e, entryContent(e)])) };
    return this.contents.byEntry;
  }
}

/**
 * Everything any entry's view reads: the config (a reload makes a new one), the fan-out reads (one
 * map while no read changed) and each network's height and epoch (its source node's /health).
 */
function snapshotSignature(config: WatchViewConfig, fleet: FleetSnapshot): unknown[] {
  const sources = new Map<string, number | undefined>();
  for (const n of fleet.networks) if (n.sourceNode !== undefined) sources.set(n.sourceNode, undefined);
  for (const n of fleet.nodes) if (sources.has(n.name)) sources.set(n.name, n.health?.epoch);
  const out: unknown[] = [config.watch, config.networks, fleet.fanOut, watchKindsVersion()];
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
