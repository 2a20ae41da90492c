// Writes the Prometheus rules file from the one source of alert definitions. Deterministic text,
// so the committed file can be compared with a fresh rendering (test/alerting/rules/definitions.unit.test.ts).
import type { AlertDefinition, AlertParams } from './types.js';
import { ALERT_DEFINITIONS, annotationTemplates } from './definitions/index.js';
import { promDuration } from './format.js';
import { effectiveParams, type RuleOverrides } from './params.js';

const HEADER = `# Prometheus alert rules for ledger-fleet-exporter.
# GENERATED from src/alerting/rules/definitions/ by \`npm run alert-rules\`: edit the definitions, not this file.
#
# Alert names, labels and annotations are part of the exporter's public contract.
# Thresholds assume a chain with ~3 s block time and the exporter scraped as job
# "ledger-fleet-exporter". Loads in Prometheus 2.42+ (no group \`labels\`, no \`query_offset\`).
# Every alert has unit tests in alerts/tests/ (\`promtool test rules alerts/tests/*.yml\`).
# The built-in alert engine (config section \`alerting:\`) evaluates the same definitions.
#
# \`for\` filters out blips; \`keep_firing_for\` holds an alert through short recoveries so a
# flapping node sends one notification, not one per flap.
# Per-node alerts are gated on \`ledger_node_up == 1\` where "down" already explains them, and
# drop probes the node does not offer (\`ledger_probe_supported == 0\`).
`;

/**
 * The rules file text. `overrides` are the config's `alerting.rules`, applied exactly as the
 * built-in engine applies them (disabled alerts are left out): a deployment that tunes its
 * alerts renders a rules file that agrees with its own engine.
 */
export function renderRulesFile(
  runbookBase: string,
  definitions: readonly AlertDefinition[] = ALERT_DEFINITIONS,
  overrides?: RuleOverrides,
): string {
  const groups = new Map<string, string[]>();
  for (const def of definitions) {
    const params = effectiveParams(def, overrides);
    if (params) groups.set(def.group, [...(groups.get(def.group) ?? []), renderRule(def, params, runbookBase)]);
  }
  const out = [HEADER, 'groups:'];
  for (const [name, rules] of groups) out.push(`  - name: ${name}`, '    rules:', rules.join('\n'));
  return `${out.join('\n')}`;
}

function renderRule(def: AlertDefinition, p: AlertParams, runbookBase: string): string {
  const lines = [`      - alert: ${def.name}`];
  for (const c of def.comment?.split('\n') ?? []) lines.push(`        # ${c}`);
  const expr = def.promql(p);
  if (expr.includes('\n')) lines.push('        expr: |', ...expr.split('\n').map((l) => `          ${l}`));
  else lines.push(`        expr: ${expr}`);
  lines.push(`        for: ${promDuration(p.forMs)}`);
  if (p.keepFiringForMs > 0) lines.push(`        keep_firing_for: ${promDuration(p.keepFiringForMs)}`);
  lines.push('        labels:', `          severity: ${p.severity}`, '        annotations:');
  for (const [k, v] of Object.entries(annotationTemplates(def, p, runbookBase)))
    lines.push(`          ${k}: ${JSON.stringify(v)}`);
  return `${lines.join('\n')}\n`;
}
