// Every configuration section, in the order of the document's top-level keys. A new section
// (alerting:, sharding:) is one module in this folder, one entry here and its field in
// ExporterConfig (../exporterConfig.ts); its secrets, checks and resolution are then picked up by
// the parser, the JSON schema and the daemon's Secrets.
// A section of a feature a small daemon may not use (alerting:, watch:) is deferred: its module, and the
// feature's modules behind its schema, load only for a document that has its key (loadSectionsFor),
// or with all.ts (the whole schema: tools, tests, one-shot commands). Until then its key's schema
// is NOT_LOADED, which a document without the key never reaches: the keys, their order and every
// message stay those of the whole schema.
import * as z from 'zod';
import type { ExporterConfig } from '../exporterConfig.js';
import type { PathProblem } from '../problems.js';
import { agentPlatformSection } from './agentPlatform.js';
import type { alertingSection } from './alerting.js';
import { evidenceSection, listenSection, networksSection } from './basic.js';
import { nodesSection } from './nodes.js';
import { pollingSection } from './polling.js';
import { shardingSection } from './sharding.js';
import { stallWindowSection } from './stallWindow.js';
import type { watchSection } from './watch.js';
import type { ConfigSection, ResolveContext } from './section.js';

/** The deferred sections, by their key. */
export interface DeferredSections {
  alerting: typeof alertingSection;
  watch: typeof watchSection;
}
type DeferredKey = keyof DeferredSections;

const LOADERS: { [K in DeferredKey]: () => Promise<DeferredSections[K]> } = {
  alerting: async () => (await import('./alerting.js')).alertingSection,
  watch: async () => (await import('./watch.js')).watchSection,
};

/** Deferred sections that hold no secret: a resolved config with one needs no module to list its secrets. */
const SECRET_FREE: ReadonlySet<DeferredKey> = new Set(['watch']);

const loaded: Partial<DeferredSections> = {};

/** Stands for a deferred section's schema while its module is not loaded: its key is absent. */
const NOT_LOADED = z.undefined().optional();

type AlertingShape = DeferredSections['alerting']['shape']['alerting'];
type WatchShape = DeferredSections['watch']['shape']['watch'];
/** NOT_LOADED typed as the section's schema: a document without the key never reaches it. */
const notLoaded = <T>() => NOT_LOADED as unknown as T;

function compose(alerting: AlertingShape, watch: WatchShape) {
  return z
    .strictObject({
      ...listenSection.shape,
      defaults: nodesSection.shape.defaults,
      ...pollingSection.shape,
      ...networksSection.shape,
      nodes: nodesSection.shape.nodes,
      ...evidenceSection.shape,
      ...agentPlatformSection.shape,
      alerting,
      ...shardingSection.shape,
      watch,
    })
    .meta({ title: 'ledger-fleet-exporter configuration' });
}

export type RawConfigSchema = ReturnType<typeof compose>;
export type RawConfigInput = z.input<RawConfigSchema>;
export type RawConfig = z.output<RawConfigSchema>;

let composed: RawConfigSchema | undefined;

/** The config's schema with the sections loaded so far (the whole schema once all are). */
export function configSchema(): RawConfigSchema {
  composed ??= compose(
    loaded.alerting?.shape.alerting ?? notLoaded<AlertingShape>(),
    loaded.watch?.shape.watch ?? notLoaded<WatchShape>(),
  );
  return composed;
}

/** Makes deferred sections part of the schema (all.ts gives every one, imported statically). */
export function provideSections(sections: Partial<DeferredSections>): void {
  Object.assign(loaded, sections);
  composed = undefined;
}

/** Deferred sections a document (or a resolved config) has whose module is not loaded. */
export function missingSections(doc: unknown): DeferredKey[] {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return [];
  const has = doc as Record<string, unknown>;
  return (Object.keys(LOADERS) as DeferredKey[]).filter((k) => has[k] !== undefined && !loaded[k]);
}

/** Throws when `doc` has a deferred section whose module is not loaded (a caller that did not load it). */
export function requireSections(doc: unknown, ignore: ReadonlySet<DeferredKey> = new Set()): void {
  const missing = missingSections(doc).filter((k) => !ignore.has(k));
  if (missing.length > 0)
    throw new Error(
      `config section ${missing.join(', ')} is not loaded: call loadSectionsFor (or import all.js) first`,
    );
}

/** Loads the deferred sections `doc` has. */
export async function loadSectionsFor(doc: unknown): Promise<void> {
  for (const k of missingSections(doc)) provideSections({ [k]: await LOADERS[k]() });
}

/** Loads every deferred section (a command that may read any config, e.g. check-config). */
export async function loadAllSections(): Promise<void> {
  for (const k of Object.keys(LOADERS) as DeferredKey[]) if (!loaded[k]) provideSections({ [k]: await LOADERS[k]() });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each section reads its own part of RawConfig
function sections(): Array<ConfigSection<any>> {
  return [
    listenSection,
    nodesSection,
    pollingSection,
    networksSection,
    evidenceSection,
    agentPlatformSection,
    ...(loaded.alerting ? [loaded.alerting] : []),
    shardingSection,
    ...(loaded.watch ? [loaded.watch] : []),
    stallWindowSection,
  ];
}

/** Cross-field problems of every section, on the expanded (not yet validated) document. */
export function sectionProblems(doc: unknown): PathProblem[] {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return [];
  return sections().flatMap((s) => s.check?.(doc as Record<string, unknown>) ?? []);
}

export function resolveSections(raw: RawConfig, ctx: ResolveContext): ExporterConfig {
  return Object.assign({}, ...sections().map((s) => s.resolve(raw, ctx))) as ExporterConfig;
}

/** Every secret value of a resolved config, section by section. */
export function sectionSecrets(config: ExporterConfig): string[] {
  // A secret left out would reach the logs: a section not loaded must not pass silently.
  requireSections(config, SECRET_FREE);
  return sections().flatMap((s) => s.secrets?.(config) ?? []);
}
