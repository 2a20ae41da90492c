// The ONE source of alert definitions: the built-in engine evaluates these, and
// alerts/ledger-fleet-exporter.rules.yml is generated from them (npm run alert-rules).
import type { AlertDefinition, AlertParams } from '../types.js';
import { EXPORTER_ALERTS } from './exporter.js';
import { NETWORK_ALERTS } from './network.js';
import { NODE_ALERTS } from './nodes.js';
import { PIPELINE_ALERTS } from './pipeline.js';
import { SHARDING_ALERTS } from './sharding.js';
import { watchKindNames, watchKinds, watchKindsVersion } from '../../../watch/kinds/registry.js';
import { readFailingAlert } from './watchEntries.js';

function build(): readonly AlertDefinition[] {
  return [
    ...NODE_ALERTS,
    ...NETWORK_ALERTS,
    // Each watch kind's, then reading any entry.
    ...watchKinds().flatMap((k) => k.alerts),
    readFailingAlert(watchKindNames()),
    ...EXPORTER_ALERTS,
    ...PIPELINE_ALERTS,
    ...SHARDING_ALERTS,
  ];
}

let current = { version: watchKindsVersion(), list: build() };

/**
 * Every alert, in rules-file order (groups as they appear), with the watch kinds registered now:
 * the engine, the config's alert names and the shard split read it when they start.
 */
export function alertDefinitions(): readonly AlertDefinition[] {
  if (current.version !== watchKindsVersion()) current = { version: watchKindsVersion(), list: build() };
  return current.list;
}

/** The built-in alerts (what the generated rules file, runbooks and docs hold). */
export const ALERT_DEFINITIONS: readonly AlertDefinition[] = current.list;

export const ALERT_NAMES: readonly string[] = ALERT_DEFINITIONS.map((d) => d.name);

export function findDefinition(name: string): AlertDefinition | undefined {
  return alertDefinitions().find((d) => d.name === name);
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
