// Writes alerts/ledger-fleet-exporter.rules.yml from the alert definitions.
//   npm run alert-rules            (RUNBOOK_BASE_URL=... to link runbooks elsewhere)
import { realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RuleOverrides } from './params.js';
import { ALERT_DEFINITIONS, DEFAULT_RUNBOOK_BASE } from './definitions/index.js';
import { renderRulesFile } from './rulesFile.js';

/** The repository's rules file, from src/alerting or dist/alerting alike. */
export function defaultRulesFile(): string {
  return path.resolve(
    path.dirname(fileURLToPath(import.meta.url)),
    '../..',
    '..',
    'alerts',
    'ledger-fleet-exporter.rules.yml',
  );
}

/** `overrides`: a deployment's `alerting.rules`, so its Prometheus evaluates what its engine does. */
export function writeRulesFile(
  file = defaultRulesFile(),
  runbookBase = DEFAULT_RUNBOOK_BASE,
  overrides?: RuleOverrides,
): string {
  writeFileSync(file, renderRulesFile(runbookBase, ALERT_DEFINITIONS, overrides));
  return file;
}

const isMain = process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const file = writeRulesFile(defaultRulesFile(), process.env.RUNBOOK_BASE_URL || DEFAULT_RUNBOOK_BASE);
  console.log(`wrote ${file}`);
}
