// LedgerNodeHeightStalled as `alert-rules --config` generates it for a fleet with a 5-minute node:
// check-config then requires threshold >= 600 (two polls per window), and promtool runs that rule
// over a node whose height rises at every poll (quiet) and one that stops (fires).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { findDefinition } from '../../../src/alerting/rules/definitions/index.js';
import { renderRulesFile } from '../../../src/alerting/rules/rulesFile.js';
import { checkTools, requireTool } from '../../support/prometheus-tools.js';

const run = promisify(execFile);
const tools = checkTools(['promtool']);
const L = (node: string) => `{instance="exporter:9715", node="${node}", network="mainnet"}`;

/** Scrapes every 30 s of a node polled every 5 minutes: 10 equal samples per poll, +100 at each poll. */
function polls(count: number, stopAfter = count): string {
  const out: number[] = [];
  for (let p = 0; p < count; p++) out.push(...Array<number>(10).fill(100 + 100 * Math.min(p, stopAfter - 1)));
  return out.join(' ');
}

const firing = (node: string) =>
  `
        exp_alerts:
          - exp_labels: {severity: critical, node: ${node}, network: mainnet}
            exp_annotations:
              summary: "Ledger node ${node} (mainnet) is not advancing"
              description: "Node ${node} in network mainnet answers, but its block height has not ` +
  `changed for more than 10 minutes (block time is about 3 s)."
              runbook_url: "alerts/RUNBOOKS.md#ledgernodeheightstalled"`;

const unitTest = `rule_files: [rules.yml]
evaluation_interval: 30s
tests:
  - name: a 5-minute node rising at every poll stays quiet; one stuck from the poll at 30m fires
    interval: 30s
    input_series:
      - series: 'ledger_node_block_height${L('rpc-slow')}'
        values: '${polls(12)}'
      - series: 'ledger_node_up${L('rpc-slow')}'
        values: '1x119'
      - series: 'ledger_node_block_height${L('rpc-stuck')}'
        values: '${polls(12, 7)}'
      - series: 'ledger_node_up${L('rpc-stuck')}'
        values: '1x119'
    alert_rule_test:
      - {eval_time: 1m30s, alertname: LedgerNodeHeightStalled, exp_alerts: []}
      - {eval_time: 12m, alertname: LedgerNodeHeightStalled, exp_alerts: []}
      - {eval_time: 40m30s, alertname: LedgerNodeHeightStalled, exp_alerts: []}
      - eval_time: 41m30s
        alertname: LedgerNodeHeightStalled${firing('rpc-stuck')}
      - eval_time: 59m30s
        alertname: LedgerNodeHeightStalled${firing('rpc-stuck')}
`;

describe('the generated LedgerNodeHeightStalled rule with threshold 600 over a 5-minute node (promtool)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'stall-promtool-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.skipIf(tools.skip)(
    `quiet while each poll raises the height, firing 10m + for after the last change${tools.skipNote}`,
    async () => {
      const promtool = requireTool(tools, 'promtool');
      const rules = renderRulesFile('alerts/RUNBOOKS.md', [findDefinition('LedgerNodeHeightStalled')!], {
        LedgerNodeHeightStalled: { threshold: 600 },
      });
      expect(rules).toContain('changes(ledger_node_block_height[10m]) == 0');
      writeFileSync(path.join(dir, 'rules.yml'), rules);
      writeFileSync(path.join(dir, 'stall.test.yml'), unitTest);
      const result = await run(promtool, ['test', 'rules', 'stall.test.yml'], { cwd: dir }).catch(
        (err: { stdout?: string; stderr?: string }) => {
          throw new Error(`promtool test rules failed:\n${err.stdout ?? ''}\n${err.stderr ?? ''}`);
        },
      );
      expect(result.stdout).toContain('SUCCESS');
    },
  );
});
