// The generated reference pages of docs/: configuration (the config schema), metrics (the families
// the code declares) and alerts (the alert definitions). When run as a script, writes them.
//   npm run docs  (compiles tools/ to dist-tools/, then runs this file)
import { existsSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ALERT_DEFINITIONS } from '../../src/alerting/rules/definitions/index.js';
import { generateSchemaJson } from '../../src/config/jsonSchema.js';
import { alertsReferencePage } from './alertsReference.js';
import { configReferencePage } from './configReference.js';
import { metricCatalogue } from './metricCatalogue.js';
import { metricsReferencePage } from './metricsReference.js';
import type { SchemaNode } from './schemaKeys.js';
import { simulatorReferencePage } from './simulatorReference.js';

/** Path under the repository -> page text. */
export async function generatedPages(): Promise<Record<string, string>> {
  return {
    'docs/configuration.md': configReferencePage(JSON.parse(generateSchemaJson()) as SchemaNode),
    'docs/metrics.md': metricsReferencePage(await metricCatalogue()),
    'docs/alerts.md': alertsReferencePage(ALERT_DEFINITIONS),
    'docs/simulator.md': simulatorReferencePage(),
  };
}

/** The repository root, from the source or the compiled tool alike. */
export function repositoryRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

const isMain = process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const root = repositoryRoot();
  for (const [file, text] of Object.entries(await generatedPages())) {
    writeFileSync(path.join(root, file), text);
    console.log(`wrote ${file}`);
  }
  // prom-client's default metrics keep a timer; nothing else is left to run.
  process.exit(0);
}
