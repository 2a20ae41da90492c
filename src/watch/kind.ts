// The one interface a watch kind implements (as a receiver kind does, alerting/receivers/kind.ts):
// its config list (fields, defaults, descriptions; the parser gives file:line:col errors), its
// fan-out reads, its view, its ledger_watch_* families, its state in words, its alerts and its
// dashboard rows. A kind is one module in kinds/ plus one line in kinds/registry.ts; nothing else
// in the code names it.
import type * as z from 'zod';
import type { EntityReadView } from '../domain.js';
import type { AlertDefinition } from '../alerting/rules/types.js';
import type { FanOutProbe } from '../probes/types.js';
import type { WatchFamily } from './families.js';
import type { EntryInputs } from './inputs.js';
import type { WatchPanelRow } from './panels/types.js';
import type { WatchedEntryView, WatchEntry, WatchState } from './types.js';

/**
 * What a kind keeps beside its reads through nodes (what it saw, on disk; probes of its own): started
 * by the watch component while entries of the kind are configured. Its data per entry reaches the
 * view as `EntryInputs.local`.
 */
export interface WatchKindRuntime {
  start(ctx: WatchRuntimeContext): void;
  /** Resolves once its work in flight is done and its state written. */
  stop(): Promise<void>;
  /** Each entry's data by entry name: the same map (and objects) while nothing changed. */
  local(): ReadonlyMap<string, unknown>;
}

export interface WatchRuntimeContext {
  /** The `watch:` entries of the config in use (a reload changes them). */
  entries(): readonly WatchEntry[];
  intervalMs(): number;
  /** Where it may keep state across restarts (alerting.stateDir); undefined: in memory only. */
  stateDir(): string | undefined;
  /** The fan-out reads as last seen (FleetSnapshot.fanOut), by probe name. */
  fanOut(): ReadonlyMap<string, readonly EntityReadView[]> | undefined;
  /** Monotonic ms, as the reads' times. */
  now(): number;
  log(level: 'warn' | 'info', fields: Record<string, unknown>, message: string): void;
}

export interface WatchKindDef<V extends WatchedEntryView = WatchedEntryView> {
  /** The kind's word: `kind` of its entries, its address label, its tag on the page. */
  kind: string;
  /** Its list under `watch:` (e.g. `validators`). */
  list: string;
  /** The list's description in the JSON schema and reference. */
  description: string;
  /** The config key of the entry's address when not `address` (services: `provider`). */
  addressField?: string;
  /** Fields of an entry beyond name, address and network (zod, with descriptions and defaults). */
  fields: z.ZodRawShape;
  /** An entry's settings, from its validated fields (name, address and network are set by the section). */
  resolve(raw: Record<string, unknown>): Record<string, unknown>;
  /** Reads per entry, by probe name (unique across kinds): one call each per interval. */
  reads: Readonly<Record<string, FanOutProbe>>;
  /** Reads per network with entries of this kind (e.g. the active set), by probe name. */
  networkReads?: Readonly<Record<string, FanOutProbe>>;
  /**
   * Reads of several entities per entry (an account's tokens), by probe name: `itemKeys` names the
   * entity keys of one entry's (the view gets them in that order, as `EntryInputs.items`).
   */
  itemReads?: Readonly<Record<string, FanOutProbe>>;
  itemKeys?(entry: WatchEntry): Readonly<Record<string, readonly string[]>>;
  /** Built once per daemon when the kind has one (see WatchKindRuntime). */
  runtime?(): WatchKindRuntime;
  /** What of the network the view reads besides the reads (a change rebuilds the view): its epoch or height. */
  fromNetwork?: 'epoch' | 'height';
  /** The entry's view from its reads: pure. */
  view(inputs: EntryInputs): V;
  /** Its ledger_watch_* families (labels network, name and `kind` = the address, plus one of their own). */
  families: readonly WatchFamily[];
  /** Its state in words for the status page and /api/v1/watch. */
  state(view: V): WatchState;
  /** Its alerts (group ledger-fleet-watch); LedgerWatchReadFailing covers every kind. */
  alerts: readonly AlertDefinition[];
  /** Its rows of the watch dashboard (npm run dashboards draws every registered kind's, in order). */
  panels?: readonly WatchPanelRow[];
}

/** Keeps a kind's view type checked where it is declared. */
export function defineWatchKind<V extends WatchedEntryView>(k: WatchKindDef<V>): WatchKindDef {
  return k;
}
