// `ledger-fleet-exporter alert-rules --config <file>`: the built CLI writes the Prometheus rules of a
// deployment (its alerting.rules and runbook links) to stdout, and Debian's promtool loads them.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ALERT_DEFINITIONS } from '../../src/alerting/rules/definitions/index.js';
import { runCli } from '../support/cliProcess.js';
import { checkTools, requireTool } from '../support/prometheus-tools.js';
import { RECORDING_FILE, RULES_FILE } from '../support/alert-rules.js';

const tools = checkTools(['promtool']);
const dir = mkdtempSync(join(tmpdir(), 'lfe-alert-rules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function configFile(name: string, lines: string[]): string {
  const file = join(dir, name);
  writeFileSync(file, ['nodes:', '  - name: a', '    url: http://127.0.0.1:9710', ...lines, ''].join('\n'));
  return file;
}

type Rule = {
  alert?: string;
  record?: string;
  expr: string;
  for: string;
  labels: { severity: string };
  annotations: { runbook_url: string };
};
const rulesOf = (text: string) => (parse(text) as { groups: { rules: Rule[] }[] }).groups.flatMap((g) => g.rules);

describe('alert-rules command', () => {
  it('without an alerting section writes the committed alerting rules, then the recording group', async () => {
    const r = await runCli(['alert-rules', '--config', configFile('plain.yaml', [])]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const recording = readFileSync(RECORDING_FILE, 'utf8');
    const group = recording.slice(recording.indexOf('groups:\n') + 'groups:\n'.length);
    expect(r.stdout).toContain(readFileSync(RULES_FILE, 'utf8') + group);
    expect(r.stdout.endsWith(group)).toBe(true);
  });

  it.skipIf(tools.skip)(
    `applies the deployment's overrides and runbook links, and promtool loads the result${tools.skipNote}`,
    async () => {
      const file = configFile('tuned.yaml', [
        'alerting:',
        `  stateDir: ${join(dir, 'state')}`,
        '  runbookBaseUrl: https://runbooks.example.org/ledger.md',
        '  rules:',
        '    LedgerNodeDown: {for: 5m, severity: warning}',
        '    LedgerNodeLowPeers: {threshold: 3}',
        '    LedgerMiningUpgradeApproaching: {enabled: false}',
      ]);
      const r = await runCli(['alert-rules', '--config', file]);
      expect(r.code).toBe(0);
      const rules = rulesOf(r.stdout).filter((x) => x.alert !== undefined);
      expect(rules.map((x) => x.alert).sort()).toEqual(
        ALERT_DEFINITIONS.map((d) => d.name)
          .filter((n) => n !== 'LedgerMiningUpgradeApproaching')
          .sort(),
      );
      expect(rules.find((x) => x.alert === 'LedgerNodeDown')).toMatchObject({
        for: '5m',
        labels: { severity: 'warning' },
        annotations: { runbook_url: 'https://runbooks.example.org/ledger.md#ledgernodedown' },
      });
      expect(rules.find((x) => x.alert === 'LedgerNodeLowPeers')!.expr).toContain('ledger_node_peers < 3');
      const out = join(dir, 'tuned.rules.yml');
      writeFileSync(out, r.stdout);
      const check = execFileSync(requireTool(tools, 'promtool'), ['check', 'rules', out], { encoding: 'utf8' });
      expect(check).toContain(`SUCCESS: ${rulesOf(r.stdout).length} rules found`);
    },
  );

  it('says what is wrong on stderr and writes no rules: exit 1 for problems, 2 for an unreadable file', async () => {
    const file = configFile('bad.yaml', ['alerting:', '  rules:', '    LedgerNodeDwn: {for: 5m}']);
    const r = await runCli(['alert-rules', '--config', file]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/bad\.yaml:\d+:\d+: alerting\.rules.*LedgerNodeDwn/);
    const missing = await runCli(['alert-rules', '--config', join(dir, 'none.yaml')]);
    expect(missing).toMatchObject({ code: 2, stdout: '' });
    expect(missing.stderr).toContain('none.yaml: cannot read configuration file (ENOENT)');
    const usage = await runCli(['alert-rules']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('usage: ledger-fleet-exporter alert-rules <file.yaml>  (or --config <file.yaml>');
  });
});
