// Commands that need no secret do not ask for one: with every receiver variable unset, the built
// CLI's alert-rules writes the rules (and names the unset variables on stderr), check-config
// --no-secrets passes a config whose only gap is the unset variables and names them, and plain
// check-config still fails naming them, pointing at --no-secrets.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { requireBuiltCli, runCli } from '../support/cliProcess.js';

const dir = mkdtempSync(join(tmpdir(), 'lfe-no-secrets-'));
const VARS = [
  'SLACK_WEBHOOK_URL',
  'TELEGRAM_BOT_TOKEN',
  'TELEGRAM_CHAT_ID',
  'PAGERDUTY_ROUTING_KEY',
  'NTFY_URL',
  'RPC',
];
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !VARS.includes(k)));
let file: string;

beforeAll(() => {
  requireBuiltCli();
  file = join(dir, 'fleet.yaml');
  writeFileSync(
    file,
    [
      'nodes:',
      '  - name: a',
      '    url: http://127.0.0.1:9710',
      '    headers: {authorization: "Bearer ${RPC}"}',
      'alerting:',
      '  rules: {LedgerNodeDown: {for: 3m}}',
      '  receivers:',
      '    - name: s',
      '      slack: {webhookUrl: "${SLACK_WEBHOOK_URL}"}',
      '    - name: t',
      '      telegram: {botToken: "${TELEGRAM_BOT_TOKEN}", chatId: "${TELEGRAM_CHAT_ID}"}',
      '    - name: p',
      '      pagerduty: {routingKey: "${PAGERDUTY_ROUTING_KEY}"}',
      '    - name: n',
      '      ntfy: {url: "${NTFY_URL}"}',
      '',
    ].join('\n'),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('with receiver variables unset', () => {
  it('alert-rules writes the rules, with the config applied, and names what is unset', async () => {
    const r = await runCli(['alert-rules', '--config', file], { env });
    expect(r.code).toBe(0);
    const rules = parse(r.stdout) as { groups: Array<{ rules: Array<{ alert?: string; for?: string }> }> };
    const down = rules.groups.flatMap((g) => g.rules).find((x) => x.alert === 'LedgerNodeDown');
    expect(down?.for).toBe('3m');
    expect(r.stderr).toContain(
      'unset: NTFY_URL, PAGERDUTY_ROUTING_KEY, RPC, SLACK_WEBHOOK_URL, TELEGRAM_BOT_TOKEN, TELEGRAM_CHAT_ID',
    );
  });

  it('check-config --no-secrets passes and names them; plain check-config fails naming them', async () => {
    const lenient = await runCli(['check-config', '--no-secrets', file], { env });
    expect(lenient.code).toBe(0);
    expect(lenient.stdout).toContain(`${file}: OK (1 node in 1 network)`);
    const names = 'NTFY_URL, PAGERDUTY_ROUTING_KEY, RPC, SLACK_WEBHOOK_URL, TELEGRAM_BOT_TOKEN, TELEGRAM_CHAT_ID';
    expect(lenient.stdout).toContain(`unset, not checked: ${names}`);
    const strict = await runCli(['check-config', file], { env });
    expect(strict.code).toBe(1);
    for (const v of VARS) expect(strict.stdout).toContain(`environment variable "${v}" is not set`);
    expect(strict.stdout).toContain(`check-config --no-secrets ${file}`);
  });

  it('check-config --no-secrets still reports every other problem', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(
      bad,
      'nodes:\n  - name: a\n    url: ftp://x\n    interval: 5q\nalerting:\n  receivers:\n    - name: s\n      slack: {webhookUrl: "${SLACK_WEBHOOK_URL}"}\n',
    );
    const r = await runCli(['check-config', '--no-secrets', bad], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/bad\.yaml:3:\d+: nodes\[0\]\.url/);
    expect(r.stdout).toMatch(/bad\.yaml:4:\d+: nodes\[0\]\.interval/);
    expect(r.stdout).not.toContain('SLACK_WEBHOOK_URL');
  });
});
