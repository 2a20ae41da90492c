// The command line's flags, as a user of Prometheus tools types them: every subcommand answers
// --help with its flags (exit 0), takes the config positionally or as --config, accepts the
// Prometheus spellings, and names the nearest flag for an unknown one (exit 2).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_RULES, CHECK_CONFIG, DEMO, NOTIFY_TEST, RUN } from '../../src/cli/commands.js';
import { nearestFlag, parseCommand, UsageError } from '../../src/cli/options.js';
import { requireBuiltCli, runCli } from '../support/cliProcess.js';

let dir: string;
let config: string;

beforeAll(() => {
  requireBuiltCli();
  dir = mkdtempSync(join(tmpdir(), 'lfe-cli-flags-'));
  config = join(dir, 'fleet.yaml');
  writeFileSync(config, ['nodes:', '  - name: a', '    url: http://127.0.0.1:9710', ''].join('\n'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('parsing', () => {
  it('reads the Prometheus spellings as the same flags', () => {
    const v = parseCommand(RUN, [
      '--config.file',
      'f.yaml',
      '--web.listen-address',
      '0.0.0.0:9715',
      '--log.level',
      'debug',
      '--log.format',
      'json',
    ]);
    expect(v).toEqual({ config: 'f.yaml', listen: '0.0.0.0:9715', 'log-level': 'debug', 'log-format': 'json' });
    expect(parseCommand(RUN, ['--config=f.yaml', '-c', 'f.yaml'])).toEqual({ config: 'f.yaml' });
  });

  it('refuses a flag given twice under two spellings with two values', () => {
    expect(() => parseCommand(RUN, ['--config', 'a.yaml', '--config.file', 'b.yaml'])).toThrow(
      /--config and --config.file are the same flag/,
    );
  });

  it('takes the config file positionally or as --config, not two different ones', () => {
    for (const command of [CHECK_CONFIG, NOTIFY_TEST, ALERT_RULES]) {
      expect(parseCommand(command, ['f.yaml'])).toEqual({ config: 'f.yaml' });
      expect(parseCommand(command, ['--config', 'f.yaml'])).toEqual({ config: 'f.yaml' });
      expect(() => parseCommand(command, ['a.yaml', '--config', 'b.yaml'])).toThrow(UsageError);
      expect(() => parseCommand(command, ['a.yaml', 'b.yaml'])).toThrow(/one <config> argument/);
    }
    expect(() => parseCommand(RUN, ['f.yaml'])).toThrow(UsageError);
  });

  it('names the nearest flag: typos, other styles, and nothing for a word far from every flag', () => {
    expect(nearestFlag(RUN, 'confg')).toBe('config');
    expect(nearestFlag(RUN, 'log_level')).toBe('log-level');
    expect(nearestFlag(RUN, 'web.listen-adress')).toBe('web.listen-address');
    expect(nearestFlag(DEMO, 'statedir')).toBe('state-dir');
    expect(nearestFlag(RUN, 'storage.tsdb.retention')).toBeUndefined();
  });
});

describe('the built CLI', () => {
  it.each(['check-config', 'alert-rules', 'notify-test', 'demo', 'the exporter run'])(
    'answers --help for %s with its flags and exit 0',
    async (name) => {
      const sub = name === 'the exporter run' ? [] : [name];
      const r = await runCli([...sub, '--help']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`Usage: ledger-fleet-exporter${sub.length ? ` ${sub[0]}` : ''}`);
      expect(r.stdout).toMatch(/-h, --help/);
      if (sub[0] !== 'demo') expect(r.stdout).toContain('--config, --config.file <file.yaml>');
    },
  );

  it('suggests the nearest flag for an unknown one and exits 2', async () => {
    const r = await runCli(['check-config', '--confg', config]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'unknown option --confg; did you mean --config? (see: ledger-fleet-exporter check-config --help)',
    );
    const run = await runCli(['--log.levl', 'debug']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('did you mean --log.level?');
  });

  it('checks a config given positionally, as --config and as --config.file alike', async () => {
    for (const args of [[config], ['--config', config], ['--config.file', config]]) {
      const r = await runCli(['check-config', ...args]);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toContain('OK (1 node');
    }
  });

  it("reads notify-test's config positionally or as --config.file, and says so when there is none", async () => {
    for (const args of [[config], ['--config.file', config]]) {
      const r = await runCli(['notify-test', ...args, '--receiver', 'ops']);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('no receiver named "ops"');
    }
    const none = await runCli(['notify-test']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('usage: ledger-fleet-exporter notify-test <file.yaml>  (or --config <file.yaml>');
  });

  it('writes the same rules for alert-rules <file> and alert-rules --config <file>', async () => {
    const a = await runCli(['alert-rules', config]);
    const b = await runCli(['alert-rules', '--config.file', config]);
    expect(a.code).toBe(0);
    expect(a.stdout).toContain('- alert: LedgerNodeDown');
    expect(b.stdout).toBe(a.stdout);
  });
});
