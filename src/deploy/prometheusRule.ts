// The Kubernetes PrometheusRule (prometheus-operator) made from the rule files in alerts/, so a
// cluster gets exactly the alert and recording rules a plain Prometheus loads from those files.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'yaml';

const HEADER = `# Generated from alerts/*.yml by \`npm run manifests\`: do not edit; change the rules and regenerate.
`;

export interface RuleGroup {
  name: string;
  rules: unknown[];
  [key: string]: unknown;
}

/** The rule files (not the promtool tests) in alertsDir, by file name. */
export function ruleFileNames(alertsDir: string): string[] {
  return readdirSync(alertsDir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort();
}

/** Every group of every rule file, in file-name order. */
export function loadRuleGroups(alertsDir: string): RuleGroup[] {
  return ruleFileNames(alertsDir).flatMap((file) => {
    const doc = parse(readFileSync(path.join(alertsDir, file), 'utf8')) as { groups?: RuleGroup[] } | null;
    if (!doc?.groups) throw new Error(`${path.join(alertsDir, file)}: no \`groups\`: not a Prometheus rule file`);
    return doc.groups;
  });
}

/** The PrometheusRule manifest text for those groups (deterministic: same groups, same bytes). */
export function prometheusRuleManifest(groups: RuleGroup[]): string {
  const manifest = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name: 'ledger-fleet-exporter', labels: { 'app.kubernetes.io/name': 'ledger-fleet-exporter' } },
    spec: { groups },
  };
  return HEADER + stringify(manifest, { lineWidth: 0 });
}
