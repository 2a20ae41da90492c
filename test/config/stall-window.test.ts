import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { requireBuiltCli, runCli } from '../support/cliProcess.js';
import { configProblemsOrNone, yaml } from '../support/configProblems.js';

const FILE = 'fleet.yaml';
const node = (name: string, ...extra: string[]) => [`  - name: ${name}`, `    url: http://10.0.0.1:9710`, ...extra];

const problems = (text: string) => configProblemsOrNone(text, { file: FILE });

describe('a node polled less than twice per LedgerNodeHeightStalled window is refused', () => {
  it('a node polled every 5 minutes against the default 120 s window: file:line:col at its interval', () => {
    expect(problems(yaml('alerting: {}', 'nodes:', ...node('fast'), ...node('slow', '    interval: 5m')))).toEqual([
      'fleet.yaml:7:15: nodes[1].interval: node "slow" is polled every 5m, but LedgerNodeHeightStalled looks for ' +
        'a height ' +
        'change within 2m (its default threshold of 120 s), so it would fire between two polls of an advancing ' +
        'node: the ' +
        'window must span at least two polls. Poll every 1m or faster, or set ' +
        'alerting.rules.LedgerNodeHeightStalled.threshold to 600 or more',
    ]);
  });

  it('an inherited defaults.interval is reported once there, naming every node and the override', () => {
    const text = yaml(
      'defaults:',
      '  interval: 2m',
      'alerting:',
      '  rules:',
      '    LedgerNodeHeightStalled: {threshold: 200}',
      'nodes:',
      ...node('a'),
      ...node('b'),
      ...node('c', '    interval: 100s'),
    );
    expect(problems(text)).toEqual([
      'fleet.yaml:2:13: defaults.interval: nodes "a", "b" are polled every 2m, but LedgerNodeHeightStalled looks ' +
        'for a height ' +
        'change within 3m20s (alerting.rules.LedgerNodeHeightStalled.threshold: 200), so it would fire between ' +
        'two polls of an ' +
        'advancing node: the window must span at least two polls. Poll every 1m40s or faster, or set ' +
        'alerting.rules.LedgerNodeHeightStalled.threshold to 240 or more',
    ]);
  });

  it('accepts two polls per window, a raised threshold, a disabled alert, and no alerting section', () => {
    expect(problems(yaml('alerting: {}', 'nodes:', ...node('edge', '    interval: 1m')))).toEqual([]);
    expect(problems(yaml('nodes:', ...node('slow', '    interval: 5m')))).toEqual([]);
    const raised = yaml(
      'alerting:',
      '  rules:',
      '    LedgerNodeHeightStalled: {threshold: 600}',
      'nodes:',
      ...node('slow', '    interval: 5m'),
    );
    expect(problems(raised)).toEqual([]);
    const off = yaml(
      'alerting:',
      '  rules:',
      '    LedgerNodeHeightStalled: {enabled: false}',
      'nodes:',
      ...node('slow', '    interval: 5m'),
    );
    expect(problems(off)).toEqual([]);
  });
});

describe('check-config on a file with a 5-minute node', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stall-window-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('exits non-zero with the file:line:col problem on stderr', async () => {
    requireBuiltCli();
    const file = join(dir, 'fleet.yaml');
    writeFileSync(file, yaml('alerting: {}', 'nodes:', ...node('slow', '    interval: 5m')));
    const r = await runCli(['check-config', file]);
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toContain(
      `${file}:5:15: nodes[0].interval: node "slow" is polled every 5m, but LedgerNodeHeightStalled`,
    );
  });
});
