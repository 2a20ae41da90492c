// docs/metrics.md from the metric catalogue: every family with its type, labels, meaning, what
// produces it and when it is absent.
import { code, generatedNotice, table } from './markdown.js';
import type { MetricCatalogue, MetricDoc } from './metricCatalogue.js';

const INTRO = `# Metrics reference

Everything \`GET /metrics\` serves (Prometheus text 0.0.4, or OpenMetrics 1.0 when \`Accept\` asks
for it; gzip when \`Accept-Encoding\` allows it). Every value is a gauge unless the type says
otherwise. A failed probe removes the values it provided, so a node that stops answering loses its
height, peers and so on instead of showing stale numbers; so does a reload that takes a probe off a
node. Token amounts are u128 base units parsed exactly and divided by 10^decimals of the network.
Chain values per network come from the node up with the highest height.

With several shards (see [deployment](deployment.md#sharding-and-high-availability)) the per-network
families only see the replica's own nodes: use the recorded series of
[\`alerts/ledger-fleet-exporter.recording.yml\`](../alerts/ledger-fleet-exporter.recording.yml), which
the shipped alerts and dashboards read.
`;

const UPSTREAM =
  `## Re-exposed node metrics

| family | labels | meaning |
| --- | --- | --- |
| \`ledger_upstream_<family>\` | the node's own labels, \`node\`, \`network\` | Each family of the node's own ` +
  `\`/metrics\`, renamed. Upstream labels named \`node\`, \`network\` or \`exported_…\` get one more \`exported_\` ` +
  `prefix, so two upstream series never become one. |

What one node can make the exporter hold is bounded by the per-node budget of
[\`polling\`](configuration.md#polling) (\`maxUpstreamSeries\`, \`maxUpstreamBytes\`,
\`maxUpstreamFamilies\`, \`maxUpstreamHelpChars\`); parsing stops at the first limit reached and what
was left out is counted in \`ledger_exporter_upstream_dropped_samples\` and
\`ledger_exporter_upstream_truncated_total\`. A family whose TYPE or names clash with another node's
is left out (reason \`conflict\`); a series whose label value holds one of the exporter's secrets is
dropped (reason \`secret\`).
`;

export function metricsReferencePage(c: MetricCatalogue): string {
  const count = c.fleet.length + c.exporter.length + c.process.length;
  return [
    generatedNotice('the families the code declares (tools/docs/metricCatalogue.ts reads them)'),
    INTRO,
    `${count} families, in four groups: [per node](#per-node), [per network and ` +
      `validator](#per-network-and-validator), [the exporter itself](#the-exporter-itself), [process](#process), ` +
      `and the [re-exposed node metrics](#re-exposed-node-metrics).\n`,
    section(
      'Per node',
      'Labels `node` and `network` on every family, plus the ones named.',
      c.fleet.filter((m) => m.labels.includes('node')),
    ),
    section(
      'Per network and validator',
      'Label `network` on every family.',
      c.fleet.filter((m) => !m.labels.includes('node')),
    ),
    section(
      'The exporter itself',
      'About the exporter, its evidence store, agent platform check, alerting and shard.',
      c.exporter,
    ),
    processSection(c.process),
    UPSTREAM,
  ].join('\n');
}

function section(title: string, lead: string, docs: MetricDoc[]): string {
  const rows = docs.map((m) => [
    code(m.name),
    m.type,
    m.labels.map((l) => code(l)).join(', '),
    m.help,
    m.source,
    m.presence,
  ]);
  const columns = ['metric', 'type', 'labels', 'meaning', 'produced by', 'present'];
  return `## ${title}\n\n${lead}\n\n${table(columns, rows)}\n`;
}

function processSection(docs: MetricDoc[]): string {
  const rows = docs.map((m) => [code(m.name), m.type, m.labels.map((l) => code(l)).join(', '), m.help]);
  return (
    `## Process\n\nprom-client's default metrics of the exporter's process. ${docs[0]?.presence ?? ''} ` +
    `\`nodejs_eventloop_lag_*\` show the delay beyond the 100 ms sampling interval (~0 at rest).\n` +
    `\n${table(['metric', 'type', 'labels', 'meaning'], rows)}\n`
  );
}
