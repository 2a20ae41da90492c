// alerting.runbookBaseUrl is a link people follow from a page or a chat: an absolute http(s) URL,
// reported at its key as file:line:col otherwise.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { configProblemsOrNone } from '../support/configProblems.js';

const yaml = (runbook: string) =>
  `nodes:\n  - name: a\n    url: http://10.0.0.1:9710\nalerting:\n  runbookBaseUrl: ${runbook}\n`;

const problems = (text: string) => configProblemsOrNone(text);

describe('alerting.runbookBaseUrl', () => {
  it('accepts an http(s) URL', () => {
    expect(problems(yaml('https://git.example.org/ops/alerts/RUNBOOKS.md'))).toEqual([]);
    expect(
      parseConfig(yaml('https://git.example.org/r.md'), { file: 'fleet.yaml', env: {} }).alerting?.runbookBase,
    ).toBe('https://git.example.org/r.md');
  });

  it('refuses what is not one, at its key', () => {
    expect(problems(yaml('runbooks page'))).toEqual([
      'fleet.yaml:5:19: alerting.runbookBaseUrl: invalid URL: expected e.g. ' +
        'https://git.example.org/ops/alerts/RUNBOOKS.md',
    ]);
    expect(problems(yaml('javascript:alert(1)'))).toEqual([
      'fleet.yaml:5:19: alerting.runbookBaseUrl: URL scheme must be http or https',
    ]);
  });
});
