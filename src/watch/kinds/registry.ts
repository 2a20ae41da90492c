// Every watch kind, one line each. A kind registered at run time (a test, an embedding program)
// must be registered before the first config is parsed (the `watch:` schema is built from this
// list) and before the daemon starts; its reads join the probe registry with it. A daemon loads this
// (every kind's code) only with a config that has a `watch:` or `alerting:` section; what the rest
// of it asks of the kinds is answered by registered.ts.
import { registerProbe, unregisterProbe } from '../../probes/registry.js';
import { shareNetworkRead, unshareNetworkRead } from '../../probes/watch/entities.js';
import { commonFamilies, type WatchFamily } from '../families.js';
import type { WatchKindDef } from '../kind.js';
import { publishWatchKinds } from './registered.js';
import { accountKind } from './account.js';
import { agentKind } from './agent.js';
import { delegatorKind } from './delegator.js';
import { minerKind } from './miner.js';
import { serviceKind } from './service.js';
import { validatorKind } from './validator.js';

const KINDS = new Map<string, WatchKindDef>();
/** Bumped at every change of the list: what is built from it (families, alerts) is rebuilt. */
let version = 0;
/** Set once the config schema was built from the list: a kind added later could never be configured. */
let frozen = false;

export function registerWatchKind(k: WatchKindDef): void {
  if (frozen)
    throw new Error(
      `watch kind "${k.kind}" registered after the config schema was built: register kinds before parsing a config`,
    );
  if (KINDS.has(k.kind)) throw new Error(`watch kind "${k.kind}" is registered twice`);
  if ([...KINDS.values()].some((o) => o.list === k.list)) throw new Error(`watch list "${k.list}" is taken`);
  // A network read another kind registered (the same probe) is shared: read once per network.
  const shared = Object.entries(k.networkReads ?? {}).filter(([name, probe]) => ownerOf(name, probe) !== undefined);
  const reads = Object.entries({ ...k.networkReads, ...k.reads, ...k.itemReads }).filter(
    ([name]) => !shared.some(([s]) => s === name),
  );
  const done: string[] = [];
  try {
    for (const [name, probe] of reads) {
      registerProbe(name, probe);
      done.push(name);
    }
  } catch (err) {
    done.forEach(unregisterProbe);
    throw err;
  }
  for (const [name] of shared) shareNetworkRead(name, k.kind);
  KINDS.set(k.kind, k);
  version++;
}

/** The kind that registered the network read `name` as this very probe, if one did. */
function ownerOf(name: string, probe: unknown): WatchKindDef | undefined {
  return [...KINDS.values()].find((o) => o.networkReads?.[name] === probe);
}

/** Removes a kind registered at run time, and its reads. */
export function unregisterWatchKind(kind: string): void {
  const k = KINDS.get(kind);
  if (!k) return;
  KINDS.delete(kind);
  for (const [name, probe] of Object.entries({ ...k.networkReads, ...k.reads, ...k.itemReads })) {
    unshareNetworkRead(name, kind);
    // A shared network read stays while another kind reads it.
    if (!ownerOf(name, probe)) unregisterProbe(name);
  }
  version++;
}

registerWatchKind(validatorKind);
registerWatchKind(minerKind);
registerWatchKind(accountKind);
registerWatchKind(delegatorKind);
registerWatchKind(agentKind);
registerWatchKind(serviceKind);

/** Every kind, in registration order; `forSchema` freezes the list (the schema cannot change later). */
export function watchKinds(forSchema = false): WatchKindDef[] {
  if (forSchema) frozen = true;
  return [...KINDS.values()];
}

/** Whether a probe is one of a registered kind's reads (registered.ts answers without loading the kinds). */
export function isWatchKindRead(name: string): boolean {
  for (const k of KINDS.values())
    if ([k.networkReads, k.reads, k.itemReads].some((reads) => Object.hasOwn(reads ?? {}, name))) return true;
  return false;
}

/** The kinds' words (their address labels), in registration order. */
export function watchKindNames(): string[] {
  return [...KINDS.keys()];
}

export function watchKind(kind: string): WatchKindDef {
  const k = KINDS.get(kind);
  if (!k) throw new Error(`unknown watch kind "${kind}"`);
  return k;
}

/** Changes with every registration: a cache of something built from the kinds keeps it. */
export function watchKindsVersion(): number {
  return version;
}

let families: { version: number; list: readonly WatchFamily[] } | undefined;

/** The ledger_watch_* families: each kind's, then those of every kind (how reading goes). */
export function watchFamilies(): readonly WatchFamily[] {
  if (families?.version !== version)
    families = { version, list: [...watchKinds().flatMap((k) => k.families), ...commonFamilies(watchKindNames())] };
  return families.list;
}

publishWatchKinds({ families: watchFamilies, isRead: isWatchKindRead });
