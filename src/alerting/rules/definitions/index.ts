// The ONE source of alert definitions: the built-in engine evaluates these, and
// alerts/ledger-fleet-exporter.rules.yml is generated from them (npm run alert-rules).
import type { AlertDefinition, AlertParams } from '../types.js';
import { EXPORTER_ALERTS } from './exporter.js';
import { NETWORK_ALERTS } from './network.js';
import { NODE_ALERTS } from './nodes.js';
import { PIPELINE_ALERTS } from './pipeline.js';
import { SHARDING_ALERTS } from './sharding.js';
import { WATCH_ENTRY_ALERTS } from './watchEntries.js';
import { WATCH_VALIDATOR_ALERTS } from './watchValidators.js';

/** Every alert, in rules-file order (groups as they appear). */
export const ALERT_DEFINITIONS: readonly AlertDefinition[] = [
  ...NODE_ALERTS,
  ...NETWORK_ALERTS,
  ...WATCH_VALIDATOR_ALERTS,
  ...WATCH_ENTRY_ALERTS,
  ...EXPORTER_ALERTS,
  ...PIPELINE_ALERTS,
  ...SHARDING_ALERTS,
];

export const ALERT_NAMES: readonly string[] = ALERT_DEFINITIONS.map((d) => d.name);

export function findDefinition(name: string): AlertDefinition | undefined {
  return ALERT_DEFINITIONS.find((d) => d.name === name);
}

/** Repository path of the runbooks: the default link base (set alerting.runbookBaseUrl for a web address). */
export const DEFAULT_RUNBOOK_BASE = 'alerts/RUNBOOKS.md';

/** GitHub-style anchor of a runbook section (its heading is the alert name). */
export function runbookUrl(base: string, alertName: string): string {
  return `${base.replace(/#.*$/, '')}#${alertName.toLowerCase()}`;
}

/** Rendered (Go template) annotations of a definition with the given parameters. */
export function annotationTemplates(
  def: AlertDefinition,
  params: AlertParams,
  runbookBase: string,
): Record<string, string> {
  return {
    summary: def.summary(params),
    description: def.description(params),
    runbook_url: runbookUrl(runbookBase, def.name),
  };
}
