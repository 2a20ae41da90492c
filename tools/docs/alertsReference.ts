// docs/alerts.md from the alert definitions (src/alerting/rules/definitions): the one source the
// built-in engine evaluates and alerts/ledger-fleet-exporter.rules.yml is generated from.
import { runbookUrl } from '../../src/alerting/rules/definitions/index.js';
import { promDuration } from '../../src/alerting/rules/format.js';
import type { AlertDefinition } from '../../src/alerting/rules/types.js';
import { anchorOf, code, escapeHtml, generatedNotice, table } from './markdown.js';

const RUNBOOKS = '../alerts/RUNBOOKS.md';

const INTRO = `# Alerts reference

Every alert the exporter defines. The same definitions feed the built-in engine (see
[alerting](alerting.md)) and the Prometheus rules file
[\`alerts/ledger-fleet-exporter.rules.yml\`](../alerts/ledger-fleet-exporter.rules.yml) (load it
with [\`alerts/ledger-fleet-exporter.recording.yml\`](../alerts/ledger-fleet-exporter.recording.yml),
whose recorded series the rules read). Each alert has a runbook in
[\`alerts/RUNBOOKS.md\`](../alerts/RUNBOOKS.md) and \`promtool test rules\` unit tests in
[\`alerts/tests/\`](../alerts/tests/).

Every alert can be tuned per deployment under \`alerting.rules.<AlertName>\`
([configuration](configuration.md#alerting)): \`enabled\`, \`for\`, \`keepFiringFor\`, \`severity\`,
and \`threshold\` for the alerts that have one. An unknown alert name is a config error.
\`ledger-fleet-exporter alert-rules --config <file> > ledger.rules.yml\` writes the rules file with
that config's overrides, so a Prometheus beside the engine alerts on the same thresholds.
`;

export function alertsReferencePage(defs: readonly AlertDefinition[]): string {
  const rows = defs.map((d) => [
    `[${d.name}](#${anchorOf(d.name)})`,
    d.defaults.severity,
    d.scope,
    promDuration(d.defaults.forMs),
    d.defaults.threshold === undefined ? '' : String(d.defaults.threshold),
    d.evaluate ? 'yes' : 'Prometheus only',
  ]);
  const summary = table(['alert', 'severity', 'about', 'for', 'threshold', 'built-in engine'], rows);
  return [generatedNotice('src/alerting/rules/definitions/'), INTRO, summary, '', ...defs.map(alertSection)].join('\n');
}

function alertSection(d: AlertDefinition): string {
  const p = d.defaults;
  const overrides = [
    'enabled',
    'for',
    'keepFiringFor',
    'severity',
    ...(p.threshold === undefined ? [] : ['threshold']),
  ];
  const facts = [
    `- **Severity** ${code(p.severity)}; **for** ${code(promDuration(p.forMs))}; **keep firing for** ` +
      `${code(promDuration(p.keepFiringForMs))}` +
      (p.threshold === undefined ? '; no threshold' : `; **threshold** ${code(String(p.threshold))}`),
    `- **Labels**: ${code('alertname')}, ${code('severity')}, ${scopeLabels(d)}`,
    `- **Override** with \`alerting.rules.${d.name}\`: ${overrides.map((k) => code(k)).join(', ')}`,
    `- **Evaluated by** ` +
      `${d.evaluate ? 'the built-in engine and Prometheus' : 'Prometheus only (the built-in engine cannot see it)'}; ` +
      `rule group ${code(d.group)}`,
    ...(d.delivery?.onlyKinds
      ? [`- **Sent only to** receivers of kind ${d.delivery.onlyKinds.map((k) => code(k)).join(', ')}`]
      : []),
    ...(d.delivery?.exceptLabelledReceiver
      ? ['- **Never sent to** the receiver it names (a failing receiver cannot report itself)']
      : []),
    `- **Runbook**: [${d.name}](${runbookUrl(RUNBOOKS, d.name)})`,
  ];
  const why = d.comment ? `\n${escapeHtml(d.comment.replace(/\n/g, ' '))}\n` : '';
  return (
    `## ${d.name}\n\n**${escapeHtml(plain(d.summary(p)))}.** ` +
    `${escapeHtml(plain(d.description(p)))}\n${why}\n${facts.join('\n')}\n\n\`\`\`promql\n${d.promql(p)}\n\`\`\`\n`
  );
}

/** An annotation's Go template as a reader sees it: `<node>` for `{{ $labels.node }}`, `<value>` for the value. */
export function plain(template: string): string {
  return template
    .replace(
      // A looked-up series (template.ts): `<metric>` for its value, then what shows without it.
      /\{\{\s*with\s+query\s+\(printf\s+"([a-zA-Z_:][a-zA-Z0-9_:]*)\{[^"]*\}"[^}]*\}\}([\s\S]*?)\{\{\s*else\s*\}\}([\s\S]*?)\{\{\s*end\s*\}\}/g,
      (_m, metric: string, then: string, otherwise: string) =>
        `${then.replace(/\{\{\s*\.[^}]*\}\}/g, `\`<${metric}>\``)} (without it: ${otherwise.replace(/^,\s*/, '')})`,
    )
    .replace(/\{\{\s*if[^}]*\}\}([\s\S]*?)\{\{\s*else\s*\}\}[\s\S]*?\{\{\s*end\s*\}\}/g, '$1')
    .replace(/\{\{[^}]*\$labels\.([A-Za-z_]+)[^}]*\}\}/g, '`<$1>`')
    .replace(/\{\{[^}]*\$value[^}]*\}\}/g, '`<value>`');
}

function scopeLabels(d: AlertDefinition): string {
  if (d.scope === 'node') return `${code('node')}, ${code('network')}`;
  if (d.scope === 'network') return code('network');
  return `${code('instance')} and the labels of its expression`;
}
