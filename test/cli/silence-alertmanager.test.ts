// `silence add|query|expire` speak Alertmanager API v2: run against a real Debian Alertmanager
// behind basic auth (its --web.config.file), over loopback, with the credentials in the URL, in
// LEDGER_EXPORTER_URL and in amtool's --http.config.file. The password never reaches the output.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startAlertmanager } from '../support/alertmanager.js';
import { requireBuiltCli, runCli } from '../support/cliProcess.js';
import { checkTools, requireTool } from '../support/prometheus-tools.js';
import { waitFor, type ManagedProcess } from '../support/processes.js';
import { basicAuth, withCredentials, writeWebConfig } from '../support/webAuth.js';

const tools = checkTools(['prometheus-alertmanager']);
const USER = 'oncall';
const PASSWORD = 'pw-Zq8Rk3Vt';
const ONCALL = { username: USER, password: PASSWORD };

interface AmSilence {
  id: string;
  status: { state: string };
  matchers: Array<{ name: string; value: string; isRegex: boolean; isEqual: boolean }>;
  createdBy: string;
  comment: string;
  startsAt: string;
  endsAt: string;
}

describe.skipIf(tools.skip)(`silence add, query, expire against a real Alertmanager${tools.skipNote}`, () => {
  let dir = '';
  let am: ManagedProcess | undefined;
  let base = '';
  const authed = () => withCredentials(base, ONCALL);
  const silences = async () => {
    const res = await fetch(`${base}/api/v2/silences`, { headers: basicAuth(ONCALL) });
    return (await res.json()) as AmSilence[];
  };
  const clean = <R extends { stdout: string; stderr: string }>(r: R): R => {
    expect(r.stdout + r.stderr).not.toContain(PASSWORD);
    return r;
  };

  beforeAll(async () => {
    requireBuiltCli();
    dir = mkdtempSync(path.join(tmpdir(), 'lfe-cli-am-'));
    const webConfig = writeWebConfig(dir, [ONCALL], 'am-web.yml');
    const started = await startAlertmanager(
      requireTool(tools, 'prometheus-alertmanager'),
      dir,
      'http://127.0.0.1:9/x',
      [`--web.config.file=${webConfig}`],
    );
    am = started.process;
    base = started.url;
    await waitFor('Alertmanager ready', async () => (await fetch(`${base}/-/ready`)).status === 401, {
      timeoutMs: 30_000,
      context: () => am?.output() ?? '',
    });
  });

  afterAll(async () => {
    await am?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('adds a silence with amtool-style matchers, lists it, expires it', async () => {
    const add = clean(
      await runCli([
        'silence',
        'add',
        'LedgerNodeDown',
        'node=val-eu-1',
        'network=~"main|test"',
        '--duration=2h',
        '--comment=disk swap',
        '--author=alice',
        `--url=${authed()}`,
      ]),
    );
    expect(add.stderr).toBe('');
    expect(add.code).toBe(0);
    const id = add.stdout.trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const kept = (await silences()).find((s) => s.id === id)!;
    expect(kept.status.state).toBe('active');
    expect(kept.createdBy).toBe('alice');
    expect(kept.comment).toBe('disk swap');
    expect(kept.matchers).toEqual(
      expect.arrayContaining([
        { name: 'alertname', value: 'LedgerNodeDown', isRegex: false, isEqual: true },
        { name: 'node', value: 'val-eu-1', isRegex: false, isEqual: true },
        { name: 'network', value: 'main|test', isRegex: true, isEqual: true },
      ]),
    );
    const hours = (Date.parse(kept.endsAt) - Date.parse(kept.startsAt)) / 3_600_000;
    expect(hours).toBeGreaterThan(1.99);
    expect(hours).toBeLessThan(2.01);

    // The URL from the environment; the table shows the silence.
    const env = { ...process.env, LEDGER_EXPORTER_URL: authed() };
    const table = clean(await runCli(['silence', 'query'], { env }));
    expect(table.code).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+Matchers\s+Ends At\s+Created By\s+Comment$/);
    expect(lines.find((l) => l.startsWith(id))).toMatch(/node="val-eu-1".*alice\s+disk swap$/);
    // -q: ids only; a filter that excludes it: not listed.
    expect(
      clean(await runCli(['silence', 'query', '-q'], { env }))
        .stdout.trim()
        .split('\n'),
    ).toContain(id);

    const expire = clean(await runCli(['silence', 'expire', id, `--url=${authed()}`]));
    expect(expire.code).toBe(0);
    expect((await silences()).find((s) => s.id === id)!.status.state).toBe('expired');
    expect(
      clean(await runCli(['silence', 'query', '-q'], { env }))
        .stdout.trim()
        .split('\n'),
    ).not.toContain(id);
    expect(clean(await runCli(['silence', 'query', '--expired', '-q'], { env })).stdout).toContain(id);
  });

  it("reads the credentials from amtool's http config file (password_file)", async () => {
    const pwFile = path.join(dir, 'pw');
    writeFileSync(pwFile, `${PASSWORD}\n`);
    const httpConfig = path.join(dir, 'http.yml');
    writeFileSync(httpConfig, stringify({ basic_auth: { username: USER, password_file: pwFile } }));
    const add = clean(
      await runCli([
        'silence',
        'add',
        'node=val-us-2',
        '-d',
        '30m',
        `--url=${base}`,
        `--http.config.file=${httpConfig}`,
      ]),
    );
    expect(add.code).toBe(0);
    const id = add.stdout.trim();
    expect((await silences()).find((s) => s.id === id)?.status.state).toBe('active');
    const json = clean(
      await runCli(['silence', 'query', '-o', 'json', `--url=${base}`, `--http.config.file=${httpConfig}`]),
    );
    expect((JSON.parse(json.stdout) as AmSilence[]).map((s) => s.id)).toContain(id);
  });

  it('says why it failed without the password: a wrong password (401), an unknown id, nothing listening', async () => {
    const wrong = clean(
      await runCli(['silence', 'query', `--url=${base.replace('http://', `http://${USER}:x${PASSWORD}@`)}`]),
    );
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/HTTP 401/);
    expect(wrong.stderr).not.toContain(`x${PASSWORD}`);

    const unknown = clean(
      await runCli(['silence', 'expire', '00000000-0000-0000-0000-000000000000', `--url=${authed()}`]),
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/DELETE http:\/\/127\.0\.0\.1:\d+\/api\/v2\/silence\/0{8}-.*HTTP (404|500)/);

    const closed = clean(await runCli(['silence', 'query', `--url=http://${USER}:${PASSWORD}@127.0.0.1:9`]));
    expect(closed.code).toBe(1);
    expect(closed.stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:9: ECONNREFUSED/);
  });

  it('refuses bad usage with exit 2: no URL, a bad matcher, a bad duration', async () => {
    const env = { ...process.env, LEDGER_EXPORTER_URL: '' };
    const noUrl = await runCli(['silence', 'query'], { env });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toMatch(/--url .*LEDGER_EXPORTER_URL/);
    const badMatcher = await runCli(['silence', 'add', 'node~x', `--url=${base}`]);
    expect(badMatcher.code).toBe(2);
    expect(badMatcher.stderr).toMatch(/bad matcher "node~x"/);
    const badDuration = await runCli(['silence', 'add', 'node=x', '--duration=2 hours', `--url=${base}`]);
    expect(badDuration.code).toBe(2);
    expect(badDuration.stderr).toMatch(/bad duration/);
  });
});
