// Every configuration section, in the order of the document's top-level keys. A new section
// (alerting:, sharding:) is one module in this folder, one entry here and its field in
// ExporterConfig (../exporterConfig.ts); its secrets, checks and resolution are then picked up by
// the parser, the JSON schema and the daemon's Secrets.
import * as z from 'zod';
import type { ExporterConfig } from '../exporterConfig.js';
import type { PathProblem } from '../problems.js';
import { agentPlatformSection } from './agentPlatform.js';
import { alertingSection } from './alerting.js';
import { evidenceSection, listenSection, networksSection } from './basic.js';
import { nodesSection } from './nodes.js';
import { pollingSection } from './polling.js';
import { shardingSection } from './sharding.js';
import { stallWindowSection } from './stallWindow.js';
import { watchSection } from './watch.js';
import type { ConfigSection, ResolveContext } from './section.js';

export const rawConfigSchema = z
  .strictObject({
    ...listenSection.shape,
    defaults: nodesSection.shape.defaults,
    ...pollingSection.shape,
    ...networksSection.shape,
    nodes: nodesSection.shape.nodes,
    ...evidenceSection.shape,
    ...agentPlatformSection.shape,
    ...alertingSection.shape,
    ...shardingSection.shape,
    ...watchSection.shape,
  })
  .meta({ title: 'ledger-fleet-exporter configuration' });

export type RawConfigInput = z.input<typeof rawConfigSchema>;
export type RawConfig = z.output<typeof rawConfigSchema>;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each section reads its own part of RawConfig
const SECTIONS: Array<ConfigSection<any>> = [
  listenSection,
  nodesSection,
  pollingSection,
  networksSection,
  evidenceSection,
  agentPlatformSection,
  alertingSection,
  shardingSection,
  watchSection,
  stallWindowSection,
];

/** Cross-field problems of every section, on the expanded (not yet validated) document. */
export function sectionProblems(doc: unknown): PathProblem[] {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return [];
  return SECTIONS.flatMap((s) => s.check?.(doc as Record<string, unknown>) ?? []);
}

export function resolveSections(raw: RawConfig, ctx: ResolveContext): ExporterConfig {
  return Object.assign({}, ...SECTIONS.map((s) => s.resolve(raw, ctx))) as ExporterConfig;
}

/** Every secret value of a resolved config, section by section. */
export function sectionSecrets(config: ExporterConfig): string[] {
  return SECTIONS.flatMap((s) => s.secrets?.(config) ?? []);
}
