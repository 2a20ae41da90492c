// Regenerates the files under deploy/ that come from other sources:
//   npm run manifests
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadRuleGroups, prometheusRuleManifest } from './prometheusRule.js';

/** The repository root, from src/deploy or dist/deploy alike. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const PROMETHEUS_RULE_FILE = path.join(REPO_ROOT, 'deploy', 'kubernetes', 'base', 'prometheusrule.yaml');

export function renderPrometheusRule(): string {
  return prometheusRuleManifest(loadRuleGroups(path.join(REPO_ROOT, 'alerts')));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(PROMETHEUS_RULE_FILE, renderPrometheusRule());
  console.log(`wrote ${path.relative(process.cwd(), PROMETHEUS_RULE_FILE)}`);
}
