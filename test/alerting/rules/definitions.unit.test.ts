// The one source of alert definitions: the committed rules file is its rendering, and the
// built-in engine's template renderer writes the text Prometheus writes (per promtool's tests).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ALERT_DEFINITIONS,
  DEFAULT_RUNBOOK_BASE,
  annotationTemplates,
  findDefinition,
  runbookUrl,
} from '../../../src/alerting/rules/definitions/index.js';
import { AlertEngine } from '../../../src/alerting/rules/engine.js';
import { renderRulesFile } from '../../../src/alerting/rules/rulesFile.js';
import { parse } from 'yaml';
import { renderTemplate } from '../../../src/alerting/rules/template.js';
import { RULES_FILE, loadPromtoolTests } from '../../support/alert-rules.js';

describe('generated rules file', () => {
  it('is current (run `npm run alert-rules` after changing src/alerting/rules/definitions)', () => {
    expect(readFileSync(RULES_FILE, 'utf8')).toBe(renderRulesFile(DEFAULT_RUNBOOK_BASE));
  });

  it('links runbooks under the given base, and by default to the path in this repository', () => {
    expect(renderRulesFile('https://git.example.org/ops/blob/main/alerts/RUNBOOKS.md')).toContain(
      'runbook_url: "https://git.example.org/ops/blob/main/alerts/RUNBOOKS.md#ledgernodedown"',
    );
    expect(runbookUrl('x/RUNBOOKS.md#old', 'LedgerNodeDown')).toBe('x/RUNBOOKS.md#ledgernodedown');
    expect(DEFAULT_RUNBOOK_BASE).toBe('alerts/RUNBOOKS.md');
    expect(readFileSync(new URL('../../../alerts/RUNBOOKS.md', import.meta.url), 'utf8')).toContain(
      '## LedgerNodeDown',
    );
  });

  it('a threshold or duration override changes the expression and the words that state it', () => {
    const def = findDefinition('LedgerNodeBehindFleet')!;
    const params = { ...def.defaults, threshold: 50, forMs: 90_000 };
    expect(def.promql(params)).toContain('\n  node:ledger_node_height_lag_blocks:fleet > 50\n');
    expect(def.description(params)).toContain('more than 50 blocks behind for 90 seconds');
    const stalled = findDefinition('LedgerNodeHeightStalled')!;
    expect(stalled.promql({ ...stalled.defaults, threshold: 300 })).toContain('changes(ledger_node_block_height[5m])');
  });
});

describe('rules file with config overrides', () => {
  const overrides = {
    LedgerNodeDown: { forMs: 3_000, keepFiringForMs: 0, severity: 'warning' as const },
    LedgerNodeBehindFleet: { threshold: 7, keepFiringForMs: 2_000 },
    LedgerMiningUpgradeApproaching: { enabled: false },
  };
  type Rule = { alert: string; expr: string; for: string; keep_firing_for?: string; labels: { severity: string } };
  const rules = (
    parse(renderRulesFile(DEFAULT_RUNBOOK_BASE, ALERT_DEFINITIONS, overrides)) as { groups: { rules: Rule[] }[] }
  ).groups.flatMap((g) => g.rules);
  const rule = (name: string) => rules.find((r) => r.alert === name);

  it('takes the same parameters the engine takes from alerting.rules, and leaves out disabled alerts', () => {
    const engine = new AlertEngine({ runbookBase: DEFAULT_RUNBOOK_BASE, instance: 'x', rules: overrides });
    expect(rule('LedgerNodeDown')).toMatchObject({ for: '3s', labels: { severity: 'warning' } });
    expect(rule('LedgerNodeDown')!.keep_firing_for).toBeUndefined();
    expect(engine.params('LedgerNodeDown')).toMatchObject({ forMs: 3_000, keepFiringForMs: 0, severity: 'warning' });
    expect(rule('LedgerNodeBehindFleet')).toMatchObject({ for: '5m', keep_firing_for: '2s' });
    expect(rule('LedgerNodeBehindFleet')!.expr).toContain('\n  node:ledger_node_height_lag_blocks:fleet > 7\n');
    expect(engine.params('LedgerNodeBehindFleet')).toMatchObject({
      threshold: 7,
      keepFiringForMs: 2_000,
      forMs: 300_000,
    });
    expect(rule('LedgerMiningUpgradeApproaching')).toBeUndefined();
    expect(engine.params('LedgerMiningUpgradeApproaching')).toBeUndefined();
    expect(rules.length).toBe(ALERT_DEFINITIONS.length - 1);
  });

  it('without overrides is the committed file', () => {
    expect(renderRulesFile(DEFAULT_RUNBOOK_BASE, ALERT_DEFINITIONS, {})).toBe(readFileSync(RULES_FILE, 'utf8'));
  });
});

describe('annotation templates', () => {
  // Every promtool expectation whose template has no $value: our renderer must write exactly
  // what Prometheus wrote for the same labels.
  const cases = loadPromtoolTests()
    .flatMap((f) => f.tests ?? [])
    .flatMap((g) => g.alert_rule_test ?? [])
    .flatMap((c) =>
      (c.exp_alerts ?? []).map((e) => ({
        name: c.alertname,
        labels: e.exp_labels ?? {},
        annotations: e.exp_annotations ?? {},
      })),
    );

  it('promtool cases exist for the check below', () => {
    expect(cases.length).toBeGreaterThan(16);
  });

  it('render as Prometheus renders them (annotations without $value)', () => {
    let compared = 0;
    for (const c of cases) {
      const def = findDefinition(c.name)!;
      const templates = annotationTemplates(def, def.defaults, DEFAULT_RUNBOOK_BASE);
      for (const [key, template] of Object.entries(templates)) {
        if (template.includes('$value')) continue;
        expect(renderTemplate(template, c.labels, 0), `${c.name} ${key}`).toBe(c.annotations[key]);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(30);
  });

  it('render $value forms, conditionals and missing labels', () => {
    expect(renderTemplate('{{ printf "%.0f" $value }} of {{ $labels.node }}', { node: 'a' }, 41.6)).toBe('42 of a');
    expect(renderTemplate('{{ $value | humanizePercentage }}', {}, 2 / 3)).toBe('66.67%');
    expect(renderTemplate('x{{ if $labels.instance }} ({{ $labels.instance }}){{ end }}.', {}, 0)).toBe('x.');
    expect(renderTemplate('{{ if $labels.i }}A{{ else }}B{{ end }}', { i: 'y' }, 0)).toBe('A');
    expect(() => renderTemplate('{{ $externalURL }}', {}, 0)).toThrow(/unsupported template action/);
  });

  it('every definition renders without a leftover action', () => {
    for (const def of ALERT_DEFINITIONS) {
      for (const t of Object.values(annotationTemplates(def, def.defaults, DEFAULT_RUNBOOK_BASE))) {
        const text = renderTemplate(t, { node: 'n', network: 'w', instance: 'i', probe: 'health' }, 3);
        expect(text, def.name).not.toMatch(/\{\{|\}\}/);
      }
    }
  });
});
