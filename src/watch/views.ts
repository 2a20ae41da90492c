// The watch's view of each entry, from what the fan-out probes last read (FleetSnapshot.fanOut)
// and the fleet (heights, epochs): pure. A value not read, or whose last read failed, is absent.
import { DEFAULT_DECIMALS, DEFAULT_EPOCH_BLOCKS, type EntityReadView, type ExporterConfig, type FleetSnapshot } from '../domain.js';
import { accountView, minerView, validatorView } from './entryViews.js';
import type { EntryInputs } from './inputs.js';
import type { WatchEntry, WatchSnapshot } from './types.js';

const OWN: Record<WatchEntry['kind'], string[]> = {
  validator: ['watchValidatorDetail'],
  miner: ['watchMinerInfo'],
  account: ['watchBalance', 'watchUnbonding'],
};
const NETWORK: Record<WatchEntry['kind'], string[]> = { validator: ['watchValidatorSet', 'watchBlockRewards'], miner: [], account: [] };

export function buildWatchSnapshot(config: ExporterConfig, fleet: FleetSnapshot): WatchSnapshot | undefined {
  const w = config.watch;
  if (!w) return undefined;
  const reads = new Map<string, Map<string, EntityReadView>>();
  for (const [probe, list] of fleet.fanOut ?? []) reads.set(probe, new Map(list.map((r) => [r.entity.key, r])));
  const networks = new Map(fleet.networks.map((n) => [n.network, n]));
  const nodes = new Map(fleet.nodes.map((n) => [n.name, n]));
  const out: WatchSnapshot = { validators: [], miners: [], accounts: [] };
  for (const entry of w.entries) {
    const network = networks.get(entry.network);
    const settings = config.networks[entry.network];
    const pick = (probes: string[], key: string) => Object.fromEntries(probes.map((p) => [p, reads.get(p)?.get(key)]));
    const inputs: EntryInputs = {
      entry,
      network,
      epoch: network?.sourceNode === undefined ? undefined : nodes.get(network.sourceNode)?.health?.epoch,
      decimals: settings?.decimals ?? DEFAULT_DECIMALS,
      epochBlocks: settings?.epochBlocks ?? DEFAULT_EPOCH_BLOCKS,
      own: pick(OWN[entry.kind], entry.name),
      networkReads: pick(NETWORK[entry.kind], entry.network),
      intervalMs: w.intervalMs,
    };
    if (entry.kind === 'validator') out.validators.push(validatorView(inputs));
    else if (entry.kind === 'miner') out.miners.push(minerView(inputs));
    else out.accounts.push(accountView(inputs));
  }
  return out;
}

