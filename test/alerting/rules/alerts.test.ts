// Our alert rules against the exporter contract, Debian's promtool (2.42) and the runbooks.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  RECORDING_FILE,
  REPO_ROOT,
  RULES_FILE,
  RUNBOOKS_FILE,
  RUNBOOK_BASE,
  allAlerts,
  githubAnchor,
  inspectPromql,
  loadPromtoolTests,
  loadRuleFile,
  markdownAnchors,
  markdownSections,
  promtoolTestFiles,
} from '../../support/alert-rules.js';
import { REQUIRE_PROMETHEUS, checkTools, requireTool } from '../../support/prometheus-tools.js';
import { WATCH_METRICS } from '../../../src/watch/metricNames.js';
import { SERVICE_METRICS } from '../../../src/watch/serviceFamilies.js';
import { TOKEN_METRICS } from '../../../src/watch/tokenFamilies.js';

const run = promisify(execFile);

// Fixed by the exporter contract (exporter-contract.md, "Alert names"), with the labels each one
// carries besides `severity`: per-node alerts name the node and its network, fleet alerts the network.
const CONTRACT_ALERTS: Record<string, string[]> = {
  LedgerNodeDown: ['node', 'network'],
  LedgerNodeUnhealthy: ['node', 'network'],
  LedgerNodeHeightStalled: ['node', 'network'],
  LedgerNodeBehindFleet: ['node', 'network'],
  LedgerNodeLowPeers: ['node', 'network'],
  LedgerNodeServerErrors: ['node', 'network'],
  LedgerFleetDegraded: ['network'],
  LedgerFleetVersionSkew: ['network'],
  LedgerValidatorSetShrunk: ['network'],
  LedgerValidatorSetMismatch: ['network'],
  LedgerMinersActiveDropped: ['network'],
  LedgerMiningUpgradeApproaching: ['network'],
  LedgerAgentKeyRejected: [],
  LedgerExporterPollOverrun: [],
  LedgerExporterEvidenceWriteFailing: [],
  LedgerExporterDown: [],
  // Built-in alerting's own pipeline (contract "Built-in alerting"; issue 10), not in "Alert names".
  LedgerExporterWatchdog: [],
  LedgerExporterNotificationsFailing: [],
  // Replicas against each other (contract "Scale-out"; issue 13), not in "Alert names".
  LedgerExporterShardingMismatch: [],
  // Certificates of https nodes (issue 36), not in "Alert names".
  LedgerNodeCertificateExpiring: ['node', 'network'],
  LedgerNodeCertificateExpiringCritical: ['node', 'network'],
  // The operator's own validators, miners and accounts (contract "Watching ..."; issue 33).
  LedgerValidatorInactive: ['name', 'network', 'validator'],
  LedgerValidatorOffline: ['name', 'network', 'validator'],
  LedgerValidatorJailed: ['name', 'network', 'validator'],
  LedgerValidatorSeatAtRisk: ['name', 'network', 'validator'],
  LedgerValidatorCommissionChanged: ['name', 'network', 'validator'],
  LedgerMinerInactive: ['name', 'network', 'miner'],
  LedgerMinerCheckinMissed: ['name', 'network', 'miner'],
  LedgerMinerRewardReduced: ['name', 'network', 'miner'],
  LedgerAccountBalanceLow: ['name', 'network', 'account'],
  LedgerUnbondingClaimable: ['name', 'network', 'account'],
  LedgerWatchReadFailing: ['name', 'network'],
  // Delegations and agents (contract "More watch kinds"; issue 42).
  LedgerDelegationValidatorInactive: ['name', 'network', 'delegator', 'validator'],
  LedgerDelegationValidatorOffline: ['name', 'network', 'delegator', 'validator'],
  LedgerDelegationCommissionHigh: ['name', 'network', 'delegator', 'validator'],
  LedgerDelegationRemoved: ['name', 'network', 'delegator', 'validator'],
  LedgerAgentNotRegistered: ['name', 'network', 'agent'],
  LedgerAgentScoreLow: ['name', 'network', 'agent'],
  LedgerAgentScoreDropped: ['name', 'network', 'agent'],
  // Tokens and services (contract "More watch kinds"; issue 42).
  LedgerTokenBalanceLow: ['name', 'network', 'account', 'token'],
  LedgerTokenAllowanceHigh: ['name', 'network', 'account', 'token', 'spender'],
  LedgerServiceInactive: ['name', 'network', 'provider', 'service_type'],
  LedgerServiceMissing: ['name', 'network', 'provider', 'service_type'],
  LedgerServiceEndpointDown: ['name', 'network', 'provider', 'service_type'],
};
const WATCH_ALERTS = Object.keys(CONTRACT_ALERTS).filter((n) => CONTRACT_ALERTS[n]!.includes('name'));
const PIPELINE_ALERTS = [
  'LedgerExporterWatchdog',
  'LedgerExporterNotificationsFailing',
  'LedgerExporterShardingMismatch',
  'LedgerNodeCertificateExpiring',
  'LedgerNodeCertificateExpiringCritical',
];

// Metric names of the contract ("Metric names", and "Built-in alerting" for notifications), plus Prometheus's own `up`.
const CONTRACT_METRICS = new Set([
  'ledger_node_up',
  'ledger_node_info',
  'ledger_node_healthy',
  'ledger_node_block_height',
  'ledger_node_height_lag_blocks',
  'ledger_node_last_block_age_seconds',
  'ledger_node_peers',
  'ledger_node_mempool_size',
  'ledger_node_uptime_seconds',
  'ledger_node_epoch',
  'ledger_node_validators',
  'ledger_node_miners_active',
  'ledger_probe_success',
  'ledger_probe_duration_seconds',
  'ledger_probe_last_success_timestamp_seconds',
  'ledger_probe_failures_total',
  'ledger_probe_supported',
  'ledger_fleet_nodes',
  'ledger_fleet_nodes_up',
  'ledger_fleet_block_height_max',
  'ledger_fleet_block_height_min',
  'ledger_fleet_versions',
  'ledger_validators_active',
  'ledger_validator_stake_tokens',
  'ledger_validator_weight',
  'ledger_validator_agent_score',
  'ledger_validators_stake_tokens',
  'ledger_fleet_validator_set_mismatch',
  'ledger_mining_miners',
  'ledger_mining_miners_active',
  'ledger_mining_block_reward_tokens',
  'ledger_mining_upgrade_height',
  'ledger_mining_upgraded',
  'ledger_mining_blocks_until_upgrade',
  'ledger_exporter_build_info',
  'ledger_exporter_config_reloads_total',
  'ledger_exporter_poll_overruns_total',
  'ledger_evidence_records_total',
  'ledger_evidence_write_errors_total',
  'ledger_evidence_bytes',
  'ledger_agent_platform_up',
  'ledger_agent_platform_key_valid',
  'ledger_alert_notifications_total',
  'up',
  // Scale-out
  'ledger_exporter_shard',
  'ledger_exporter_total_shards',
  'ledger_exporter_nodes_assigned',
  // Certificates of https nodes (issue 36)
  'ledger_node_tls_cert_expiry_timestamp_seconds',
  // Watch (with the entries' own settings the rules compare against: src/watch/metricNames.ts)
  ...Object.values(WATCH_METRICS),
  ...Object.values(TOKEN_METRICS),
  ...Object.values(SERVICE_METRICS),
]);

const SEVERITIES = new Set(['critical', 'warning', 'info']);
const CONTRACT_SPEC = path.resolve(REPO_ROOT, '../shared/spec/exporter-contract.md');
const HAS_SPEC = existsSync(CONTRACT_SPEC);
/** In the test's name, so a skip says why (vitest prints the name of a skipped test, not a reason). */
const SPEC_NOTE = HAS_SPEC
  ? ''
  : ` (skipped: the team's spec is not checked out beside the repository: ${CONTRACT_SPEC} is absent)`;

const rules = loadRuleFile();
const recordingRules = loadRuleFile(RECORDING_FILE).groups.flatMap(
  (g) => g.rules as unknown as Array<{ record: string; expr: string }>,
);
const alerts = allAlerts(rules);
const promtoolTests = loadPromtoolTests();

describe('alert rules match the exporter contract', () => {
  it('names every contract alert exactly once, and nothing else', () => {
    const names = alerts.map((a) => a.alert).sort();
    expect(names).toEqual(Object.keys(CONTRACT_ALERTS).sort());
  });

  // The list above is a copy of the contract; when the spec is checked out beside the repo, prove the copy.
  it.skipIf(!HAS_SPEC)(`uses the alert names of the contract document${SPEC_NOTE}`, () => {
    const spec = readFileSync(CONTRACT_SPEC, 'utf8');
    const section = spec.split(/^## Alert names.*$/m)[1]?.split(/^## /m)[0] ?? '';
    const named = [...section.matchAll(/`(Ledger[A-Za-z]+)`/g)].map((m) => m[1]);
    expect(named.sort()).toEqual(
      Object.keys(CONTRACT_ALERTS)
        .filter((n) => !PIPELINE_ALERTS.includes(n) && !WATCH_ALERTS.includes(n))
        .sort(),
    );
  });

  it.skipIf(!HAS_SPEC)(`uses the watch alert names of the contract document${SPEC_NOTE}`, () => {
    const spec = readFileSync(CONTRACT_SPEC, 'utf8');
    // Two sections name them: the first watch kinds, then "More watch kinds".
    const sections = [/^## Watching the operator.*$/m, /^## More watch kinds.*$/m].map(
      (heading) => spec.split(heading)[1]?.split(/^## /m)[0] ?? '',
    );
    const named = [...new Set(sections.flatMap((s) => [...s.matchAll(/`(Ledger[A-Za-z]+)`/g)].map((m) => m[1])))];
    expect(named.sort()).toEqual([...WATCH_ALERTS].sort());
  });

  it.each(alerts.map((a) => [a.alert, a] as const))('%s: severity, annotations and a runbook link', (name, rule) => {
    expect(Object.keys(rule.labels ?? {})).toEqual(['severity']);
    expect(SEVERITIES.has(rule.labels?.severity ?? '')).toBe(true);
    expect(Object.keys(rule.annotations ?? {}).sort()).toEqual(['description', 'runbook_url', 'summary']);
    expect(rule.annotations?.summary?.trim()).not.toBe('');
    // Descriptions carry templated values ({{ $labels.x }} or {{ $value }}), not just prose.
    expect(rule.annotations?.description).toMatch(/\{\{[^}]*\$(labels|value)[^}]*\}\}/);
    expect(rule.annotations?.runbook_url).toBe(`${RUNBOOK_BASE}#${name.toLowerCase()}`);
    // A `for` on every alert, so one bad sample never notifies.
    expect(rule.for).toMatch(/^[1-9][0-9]*[smh]$/);
  });

  it("every expression parses and selects only contract metrics or our recording rules' series", () => {
    const recorded = new Set<string>();
    for (const rule of recordingRules) {
      const info = inspectPromql(rule.expr);
      expect(info.errors, `${rule.record}: ${rule.expr}`).toEqual([]);
      for (const metric of info.metrics)
        expect(CONTRACT_METRICS.has(metric) || recorded.has(metric), `${rule.record} uses ${metric}`).toBe(true);
      recorded.add(rule.record);
    }
    for (const rule of alerts) {
      const info = inspectPromql(rule.expr);
      expect(info.errors, `${rule.alert}: ${rule.expr}`).toEqual([]);
      expect(info.metrics.length, rule.alert).toBeGreaterThan(0);
      for (const metric of info.metrics)
        expect(CONTRACT_METRICS.has(metric) || recorded.has(metric), `${rule.alert} uses ${metric}`).toBe(true);
    }
  });

  it('the PromQL inspection catches bad expressions and unknown metrics', () => {
    expect(inspectPromql('sum(ledger_node_up').errors.length).toBeGreaterThan(0);
    expect(
      inspectPromql('rate(ledger_probe_failures_total{reason="http_5xx"}[5m]) and on(node) {__name__="x_y"}').metrics,
    ).toEqual(['ledger_probe_failures_total', 'x_y']);
  });

  it('loads in Prometheus 2.42: no rule-group labels or query_offset, only known rule keys', () => {
    for (const group of rules.groups) {
      expect(
        Object.keys(group).filter((k) => !['name', 'interval', 'rules'].includes(k)),
        group.name,
      ).toEqual([]);
      for (const rule of group.rules) {
        const extra = Object.keys(rule).filter(
          (k) => !['alert', 'expr', 'for', 'keep_firing_for', 'labels', 'annotations'].includes(k),
        );
        expect(extra, rule.alert).toEqual([]);
      }
    }
    expect(readFileSync(RULES_FILE, 'utf8')).not.toMatch(/^\s*query_offset:/m);
  });
});

describe('runbooks', () => {
  const markdown = readFileSync(RUNBOOKS_FILE, 'utf8');
  const anchors = new Set(markdownAnchors(markdown));
  const sections = markdownSections(markdown);

  it('computes anchors the way GitHub does', () => {
    expect(githubAnchor('LedgerNodeDown')).toBe('ledgernodedown');
    expect(githubAnchor('What to do? (v2)')).toBe('what-to-do-v2');
    expect(markdownAnchors('# A\n## A\n```\n# not a heading\n```\n')).toEqual(['a', 'a-1']);
  });

  it.each(alerts.map((a) => [a.alert, a] as const))('%s: its runbook section exists and explains it', (name, rule) => {
    const fragment = rule.annotations?.runbook_url?.split('#')[1] ?? '';
    expect(anchors.has(fragment), `anchor #${fragment} in RUNBOOKS.md`).toBe(true);
    const body = sections.get(name) ?? '';
    for (const part of ['**Meaning.**', '**Confirm.**', '**Act.**']) expect(body, `${name} ${part}`).toContain(part);
    // "How to confirm" names at least one metric of the contract.
    expect(
      [...CONTRACT_METRICS].some((m) => body.includes(m)),
      name,
    ).toBe(true);
  });
});

describe('promtool unit tests cover every alert', () => {
  it('each test file targets our rules and sets evaluation_interval and interval explicitly', () => {
    expect(promtoolTests.length).toBeGreaterThan(0);
    for (const file of promtoolTests) {
      // Recording rules first, so the alerts read series recorded in the same evaluation.
      const loaded = file.rule_files?.map((r) => path.resolve(path.dirname(file.path), r));
      expect([[RULES_FILE], [RECORDING_FILE], [RECORDING_FILE, RULES_FILE]], file.path).toContainEqual(loaded);
      expect(file.evaluation_interval, file.path).toMatch(/^[0-9]+[smh]$/);
      for (const group of file.tests ?? [])
        expect(group.interval, `${file.path}: ${group.name}`).toMatch(/^[0-9]+[smh]$/);
    }
  });

  it.each(alerts.map((a) => [a.alert, a] as const))(
    '%s: a case that fires with the expected labels and one that must not',
    (name, rule) => {
      const groups = promtoolTests.flatMap((f) => f.tests ?? []);
      const casesIn = (g: (typeof groups)[number]) => (g.alert_rule_test ?? []).filter((c) => c.alertname === name);
      const firing = groups.flatMap(casesIn).flatMap((c) => c.exp_alerts ?? []);
      expect(firing.length, `${name} fires somewhere`).toBeGreaterThan(0);
      for (const exp of firing) {
        expect(exp.exp_labels?.severity).toBe(rule.labels?.severity);
        for (const label of CONTRACT_ALERTS[name] ?? [])
          expect(exp.exp_labels?.[label], `${name} label ${label}`).toBeTruthy();
        expect(Object.keys(exp.exp_annotations ?? {}).sort()).toEqual(['description', 'runbook_url', 'summary']);
        expect(exp.exp_annotations?.runbook_url).toBe(rule.annotations?.runbook_url);
        expect(exp.exp_annotations?.description).not.toContain('{{');
      }
      // A scenario (test group with input) where the alert is expected to stay silent throughout.
      const quiet = groups.filter(
        (g) =>
          (g.input_series?.length ?? 0) > 0 &&
          casesIn(g).length > 0 &&
          casesIn(g).every((c) => (c.exp_alerts ?? []).length === 0),
      );
      expect(quiet.length, `${name} has a must-not-fire scenario`).toBeGreaterThan(0);
    },
  );
});

const tools = checkTools(['promtool']);

describe('missing Prometheus tools', () => {
  it('skip only when not required, and fail when REQUIRE_PROMETHEUS=1', () => {
    const check = checkTools(['promtool-that-does-not-exist']);
    expect(check.missing).toEqual(['promtool-that-does-not-exist']);
    expect(check.skip).toBe(!REQUIRE_PROMETHEUS);
    expect(() => requireTool(check, 'promtool-that-does-not-exist')).toThrow(/REQUIRE_PROMETHEUS/);
  });
});

describe('Debian promtool', () => {
  it.skipIf(tools.skip)(`promtool check rules accepts the rule file${tools.skipNote}`, async () => {
    const promtool = requireTool(tools, 'promtool');
    const { stdout } = await run(promtool, ['check', 'rules', RULES_FILE], { cwd: REPO_ROOT });
    expect(stdout).toContain('SUCCESS');
    expect(stdout).toContain(`${alerts.length} rules found`);
  });

  it.skipIf(tools.skip)(`promtool test rules passes every unit test${tools.skipNote}`, async () => {
    const promtool = requireTool(tools, 'promtool');
    const files = promtoolTestFiles();
    const result = await run(promtool, ['test', 'rules', ...files], { cwd: REPO_ROOT }).catch(
      (err: { stdout?: string; stderr?: string }) => {
        throw new Error(`promtool test rules failed:\n${err.stdout ?? ''}\n${err.stderr ?? ''}`);
      },
    );
    expect(result.stdout).not.toContain('FAILED');
    expect(result.stdout.match(/SUCCESS/g)?.length).toBe(files.length);
  });

  it.skipIf(tools.skip)(`promtool test rules reports a wrong expectation as a failure${tools.skipNote}`, async () => {
    // Guards the test above: an unexpected annotation must make promtool exit non-zero.
    const promtool = requireTool(tools, 'promtool');
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(path.join(tmpdir(), 'alerts-test-'));
    try {
      const source = readFileSync(promtoolTestFiles()[0] ?? '', 'utf8')
        .replace(/(rule_files:\s*\n\s*-\s*).*/, `$1${JSON.stringify(RULES_FILE)}`)
        .replace(/summary: "([^"]*)"/, 'summary: "$1 (wrong)"');
      const file = path.join(dir, 'mutated.yml');
      writeFileSync(file, source);
      const outcome = await run(promtool, ['test', 'rules', file]).then(
        () => ({ code: 0, output: '' }),
        (err: { code?: number; stdout?: string; stderr?: string }) => ({
          code: err.code,
          output: `${err.stdout ?? ''}${err.stderr ?? ''}`,
        }),
      );
      expect(outcome.code).not.toBe(0);
      expect(outcome.output).toContain('FAILED');
      expect(outcome.output).toContain('(wrong)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
