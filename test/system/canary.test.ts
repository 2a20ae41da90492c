// The confinement proof: the whole daemon (dist/cli.js) runs as a child process with six
// recognisable secrets (canaries): the agent key from the environment, a key file and its
// rotated value, a node URL password, a node header from the environment and one from a file.
// The fake platform is driven through success, 401, 403, 5xx (echoing the key), a redirect to
// another origin, and rotation; simulated nodes answer 502 through a proxy that echoes their
// credentials. Then every output is searched for every canary in every encoding, and the test
// also proves the credentials DID reach the platform and the nodes (so it cannot pass by
// sending nothing).
//
// One canary test for every kind of secret: this file holds the agent key and the node
// credentials; the receiver secrets (Slack webhook URL, PagerDuty routing key, webhook header from
// the environment, Alertmanager bearer token file and basic-auth password) are proven the same way
// by the suite imported below, with its own exporter and fake receivers that echo what they got.
import { mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimFleet } from '../../src/sim/index.js';
import { canaryForms, findCanaries, makeCanary, type Canary, type CanaryHit } from '../support/canaries.js';
import {
  jsonLines,
  requireBuiltCli,
  runCli,
  startDaemonProcess,
  type CliResult,
  type DaemonProcess,
} from '../support/cliProcess.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { sample } from '../support/exporterChild.js';
import { waitFor } from '../support/processes.js';
import { startRecordingProxy, type RecordingProxy } from '../support/recordingProxy.js';
import './canary-receivers.js';

const C = {
  envKey: makeCanary('1-agent-key-env'),
  fileKey: makeCanary('2-agent-key-file'),
  rotatedKey: makeCanary('2b-agent-key-rotated'),
  urlPassword: makeCanary('3-node-url-password'),
  urlPasswordRotated: makeCanary('3b-node-url-password-rotated'),
  headerEnv: makeCanary('4-node-header-env'),
  headerFile: makeCanary('5-node-header-file'),
};
const CANARIES: Canary[] = Object.values(C);
const NODE_USER = 'monitor';

/** Every output searched, by name: filled as the runs go, searched in the last test. */
const outputs: Array<{ name: string; text: string }> = [];
function keep(name: string, text: string): void {
  outputs.push({ name, text });
}

let dir: string;
let fleet: SimFleet;
let goodProxy: RecordingProxy;
let badProxy: RecordingProxy;
let platform: FakePlatform;
const daemons: DaemonProcess[] = [];

const ENV_CONFIG = 'config.yaml';
const FILE_CONFIG = 'config-keyfile.yaml';

const basicOf = (c: Canary) => `Basic ${Buffer.from(`${NODE_USER}:${c.value}`).toString('base64')}`;

function configText(opts: { keyFile?: boolean; evidenceDir?: string; goodPassword?: Canary } = {}): string {
  const node = (name: string, port: number, pw: Canary = C.urlPassword) => `
  - name: ${name}
    url: http://${NODE_USER}:${encodeURIComponent(pw.value)}@127.0.0.1:${port}
    network: main
    headers:
      x-api-key: \${NODE_TOKEN}
      x-proxy-token: { file: ./header-token.txt }`;
  return `# canary test config
listen: 127.0.0.1:0
defaults:
  interval: 400ms
  timeout: 300ms
  probes: [health, blockNumber, metrics]
nodes:${node('good', goodProxy.port, opts.goodPassword)}${node('bad', badProxy.port)}
evidence:
  dir: ${opts.evidenceDir ?? './evidence'}
  maxBytes: 1MiB
  maxAgeDays: 1
agentPlatform:
  baseUrl: ${platform.url}
${opts.keyFile ? '  apiKeyFile: ./agent-key.txt' : '  apiKeyEnv: AGENT_API_KEY'}
  interval: 250ms
  timeout: 200ms
`;
}

const childEnv = (): NodeJS.ProcessEnv => ({
  ...process.env,
  AGENT_API_KEY: C.envKey.value,
  NODE_TOKEN: C.headerEnv.value,
});

async function get(
  d: DaemonProcess,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  const res = await fetch(d.url + path, { headers, signal: AbortSignal.timeout(5_000) });
  return { status: res.status, text: await res.text() };
}

/** Waits until /metrics shows `series` with a value accepted by `ok`. */
async function waitMetric(d: DaemonProcess, series: string, ok: (v: number) => boolean, what: string): Promise<void> {
  await waitFor(
    what,
    async () => {
      const v = sample((await get(d, '/metrics')).text, series);
      return v !== undefined && ok(v) ? true : undefined;
    },
    { timeoutMs: 10_000, intervalMs: 100, context: () => d.stdout().slice(-3000) + d.stderr().slice(-2000) },
  );
}

async function evidenceCount(d: DaemonProcess, node: string): Promise<number> {
  const r = await get(d, `/api/evidence?node=${node}&limit=1000`);
  return (JSON.parse(r.text) as { records: unknown[] }).records.length;
}

/** Captures every HTTP surface of a running daemon. */
async function captureEndpoints(d: DaemonProcess, run: string): Promise<void> {
  for (const path of [
    '/metrics',
    '/',
    '/healthz',
    '/readyz',
    '/api/evidence?limit=1000',
    '/api/evidence?node=agent-platform&limit=1000',
    '/api/evidence?node=bad&limit=1000',
    '/api/evidence?node=good',
  ]) {
    const r = await get(d, path);
    keep(`${run} GET ${path} (HTTP ${r.status})`, r.text);
  }
  const om = await get(d, '/metrics', { accept: 'application/openmetrics-text; version=1.0.0' });
  keep(`${run} GET /metrics as OpenMetrics`, om.text);
  // An error answer of our own server, too.
  const bad = await get(d, `/api/evidence?node=${encodeURIComponent('x y')}&limit=-1`);
  keep(`${run} GET /api/evidence with bad parameters (HTTP ${bad.status})`, bad.text);
}

function keepResult(name: string, r: CliResult): void {
  expect(r.overflow, `${name}: output over the cap`).toBe(false);
  keep(`${name} stdout`, r.stdout);
  keep(`${name} stderr`, r.stderr);
}

async function filesUnder(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string, depth: number) => {
    if (depth > 8) return;
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p, depth + 1);
      else out.push(p);
    }
  };
  await walk(root, 0);
  return out;
}

beforeAll(async () => {
  requireBuiltCli();
  dir = await mkdtemp(join(tmpdir(), 'lfe-canary-'));
  fleet = await SimFleet.start(
    [
      { name: 'good', network: 'main', build: 'current' },
      { name: 'bad', network: 'main', build: 'current', fault: 'proxy_502' },
    ],
    { layout: 'port-per-node', blockTimeMs: 1000 },
  );
  goodProxy = await startRecordingProxy(fleet.node('good').url);
  badProxy = await startRecordingProxy(fleet.node('bad').url, { echoCredentialsOn5xx: true });
  // The profile carries the key back, as a careless platform might: it must not become a label.
  platform = await startFakePlatform({
    validKeys: [C.envKey.value],
    profile: { id: 'agent-7', name: 'Canary Agent', apiKey: C.envKey.value },
  });
  await writeFile(join(dir, 'header-token.txt'), `${C.headerFile.value}\n`);
  await writeFile(join(dir, 'agent-key.txt'), `${C.fileKey.value}\n`);
  await writeFile(join(dir, ENV_CONFIG), configText());
  await writeFile(join(dir, FILE_CONFIG), configText({ keyFile: true }));
});

afterAll(async () => {
  await Promise.all(daemons.map((d) => d.stop(1_000)));
  await platform?.close();
  await goodProxy?.close();
  await badProxy?.close();
  await fleet?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('canary search', () => {
  it('finds a canary in raw, URL-encoded and base64 forms at any alignment (so a miss means absence)', () => {
    const c = makeCanary('self-test');
    for (const [pre, post] of [
      ['', ''],
      ['a', 'z'],
      ['ab', 'zz'],
      [`${NODE_USER}:`, ''],
    ]) {
      const s = `${pre}${c.value}${post}`;
      for (const encoded of [
        s,
        encodeURIComponent(s),
        encodeURIComponent(s).toLowerCase(),
        Buffer.from(s).toString('base64'),
        Buffer.from(s).toString('base64url'),
      ]) {
        expect(findCanaries('t', `..${encoded}..`, [c]).length, encoded).toBeGreaterThan(0);
      }
    }
    // Half a secret is a leak too: the head or the tail of a canary cut in two is found.
    expect(findCanaries('t', c.value.slice(0, 31), [c]).map((h) => h.form)).toEqual(['partial-head']);
    expect(findCanaries('t', c.value.slice(-13), [c]).map((h) => h.form)).toEqual(['partial-tail']);
    expect(findCanaries('t', 'Bearer [REDACTED] CNRY-self-test-', [c])).toEqual([]);
    expect(canaryForms(c).map((f) => f.form)).toEqual(
      expect.arrayContaining(['raw', 'partial-head', 'partial-tail', 'url-encoded', 'base64', 'base64url']),
    );
  });
});

describe('the whole daemon keeps every secret confined', () => {
  it('run 1 (key from env): success, 401, 403, 5xx echoing the key, cross-origin redirect, reloads', async () => {
    const d = await startDaemonProcess(
      ['--config', join(dir, ENV_CONFIG), '--log-level', 'debug', '--log-format', 'json'],
      { env: childEnv(), cwd: dir },
    );
    daemons.push(d);

    // Success: the key is accepted and the non-secret profile fields are exported.
    await waitMetric(d, 'ledger_agent_platform_key_valid{reason="ok"}', (v) => v === 1, 'key accepted');
    const m = (await get(d, '/metrics')).text;
    expect(sample(m, 'ledger_agent_platform_info{id="agent-7",name="Canary Agent"}')).toBe(1);
    // A profile name that carries the key where the label bound cuts it in two.
    const cutAt = 128 - 'Canary Agent '.length - (C.envKey.value.length - 13);
    platform.profile = { id: 'agent-7', name: `Canary Agent ${'x'.repeat(cutAt)}${C.envKey.value}` };
    const echoed = await waitFor(
      'the long profile name exported',
      async () => {
        const text = (await get(d, '/metrics')).text;
        return text.includes('ledger_agent_platform_info{id="agent-7",name="Canary Agent xxx') ? text : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    keep('run 1 GET /metrics while the profile name carries the key', echoed);

    // 401: the platform no longer knows the key.
    platform.validKeys.clear();
    await waitMetric(d, 'ledger_agent_platform_key_valid{reason="unauthorized"}', (v) => v === 0, 'key rejected (401)');
    // 403.
    platform.mode = 'forbidden';
    await waitMetric(d, 'ledger_agent_platform_key_valid{reason="forbidden"}', (v) => v === 0, 'key forbidden (403)');
    // 5xx whose body echoes the Authorization header: evidence is written.
    platform.mode = 'server_error';
    await waitFor(
      'agent platform evidence',
      async () => ((await evidenceCount(d, 'agent-platform')) > 0 ? true : undefined),
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    // Redirect to another origin.
    platform.mode = 'redirect';
    await waitMetric(d, 'ledger_agent_platform_requests_total{class="3xx"}', (v) => v >= 2, 'redirects answered');
    platform.mode = 'auth';

    // Nodes: the good one is up, the bad one (502 through an echoing proxy) has evidence.
    await waitMetric(d, 'ledger_node_up{node="good",network="main"}', (v) => v === 1, 'good node up');
    await waitFor('node evidence', async () => ((await evidenceCount(d, 'bad')) > 0 ? true : undefined), {
      timeoutMs: 10_000,
      intervalMs: 100,
    });

    // Reload: a config with a syntax error on the password line is rejected (and logged)...
    const cfgPath = join(dir, ENV_CONFIG);
    const original = configText();
    const pwLine = original.split('\n').find((l) => l.includes('url: http://'))!;
    await writeFile(cfgPath, original.replace(pwLine, pwLine.replace('url: ', 'url: [')));
    const logged = (msg: string) => () => (jsonLines(d.stdout()).some((l) => l.msg === msg) ? true : undefined);
    await waitFor('reload rejected', logged('configuration reload rejected; the running configuration stays'), {
      timeoutMs: 10_000,
      intervalMs: 100,
    });
    // ...then the good node's password, rotated in the file, is applied without a restart.
    await writeFile(cfgPath, configText({ goodPassword: C.urlPasswordRotated }));
    await waitFor('reload applied', logged('configuration applied'), { timeoutMs: 10_000, intervalMs: 100 });
    await waitFor(
      'the rotated node password in use',
      () =>
        goodProxy.requests.some((r) => r.headers.authorization === basicOf(C.urlPasswordRotated)) ? true : undefined,
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    await writeFile(cfgPath, original);

    // The echoed key reached our evidence and was scrubbed there (the 5xx path was exercised).
    const agentEvidence = JSON.parse((await get(d, '/api/evidence?node=agent-platform')).text) as {
      records: Array<{ status: number; body: string }>;
    };
    expect(agentEvidence.records[0]!.status).toBe(500);
    expect(agentEvidence.records[0]!.body).toContain('internal error while handling Bearer [REDACTED]');
    const nodeEvidence = JSON.parse((await get(d, '/api/evidence?node=bad')).text) as {
      records: Array<{ status: number; body: string; headers: Record<string, string> }>;
    };
    expect(nodeEvidence.records[0]!.status).toBe(502);
    expect(nodeEvidence.records[0]!.headers.via).toBe('1.1 proxy (Basic [REDACTED])');
    expect(nodeEvidence.records[0]!.body).toMatch(
      /proxy debug: authorization=.*REDACTED.*x-api-key=\[REDACTED\]; x-proxy-token=\[REDACTED\]/,
    );

    await captureEndpoints(d, 'run 1');
    const r = await d.stop();
    keepResult('run 1 daemon', r);

    // The logs tell the story without the key: each outcome was logged.
    const msgs = jsonLines(r.stdout).map(
      (l) =>
        `${String(l.msg)} ` +
        `${typeof l.reason === 'string' ? l.reason : l.reason === undefined ? '' : JSON.stringify(l.reason)}`,
    );
    for (const expected of [
      'agent platform key accepted ok',
      'agent platform check not ok unauthorized',
      'agent platform check not ok forbidden',
      'agent platform check not ok server_error',
      'agent platform check not ok redirect',
    ]) {
      expect(msgs).toContain(expected);
    }
  }, 60_000);

  it('run 1 sent the key to the platform only, and never to the origin a redirect pointed at', () => {
    const auths = new Set(platform.requests.map((r) => r.authorization));
    expect(auths).toEqual(new Set([`Bearer ${C.envKey.value}`]));
    expect(platform.requests.length).toBeGreaterThanOrEqual(6);
    expect(platform.requests.every((r) => r.path === '/api/agents/me')).toBe(true);
    // Not followed at all, so the foreign origin saw nothing, let alone the key.
    expect(platform.foreign.requests).toEqual([]);
  });

  it('run 2 (key file): uses the file over the environment and a rotated key from the next check', async () => {
    const before = platform.requests.length;
    platform.validKeys.clear();
    platform.validKeys.add(C.fileKey.value);
    platform.mode = 'auth';
    platform.profile = { id: 'agent-8', name: `Rotating Agent ${C.fileKey.value}` };
    const d = await startDaemonProcess(
      ['--config', join(dir, FILE_CONFIG), '--log-level', 'debug', '--log-format', 'json'],
      { env: childEnv(), cwd: dir },
    );
    daemons.push(d);
    await waitMetric(d, 'ledger_agent_platform_key_valid{reason="ok"}', (v) => v === 1, 'file key accepted');
    // The profile echoed the file key: the label keeps the name, not the key.
    expect(
      sample(
        (await get(d, '/metrics')).text,
        'ledger_agent_platform_info{id="agent-8",name="Rotating Agent [REDACTED]"}',
      ),
    ).toBe(1);

    // Rotation as a secret mount does it: a new file renamed over the old one; the old key is revoked.
    platform.validKeys.clear();
    platform.validKeys.add(C.rotatedKey.value);
    platform.profile = { id: 'agent-8', name: `Rotating Agent ${C.rotatedKey.value}` };
    await writeFile(join(dir, 'agent-key.txt.new'), `${C.rotatedKey.value}\n`);
    await rename(join(dir, 'agent-key.txt.new'), join(dir, 'agent-key.txt'));
    await waitFor(
      'a check with the rotated key',
      () =>
        platform.requests.slice(before).some((r) => r.authorization === `Bearer ${C.rotatedKey.value}`)
          ? true
          : undefined,
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    const okBefore = sample((await get(d, '/metrics')).text, 'ledger_agent_platform_requests_total{class="2xx"}') ?? 0;
    await waitMetric(
      d,
      'ledger_agent_platform_requests_total{class="2xx"}',
      (v) => v > okBefore,
      'rotated key accepted',
    );
    await waitMetric(d, 'ledger_agent_platform_key_valid{reason="ok"}', (v) => v === 1, 'rotated key valid');

    // The rotated key echoed by a failing platform.
    const evBefore = await evidenceCount(d, 'agent-platform');
    platform.mode = 'server_error';
    await waitFor(
      'evidence with the rotated key echoed',
      async () => ((await evidenceCount(d, 'agent-platform')) > evBefore ? true : undefined),
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    platform.mode = 'auth';

    await captureEndpoints(d, 'run 2');
    const r = await d.stop();
    keepResult('run 2 daemon', r);

    const run2 = platform.requests.slice(before);
    const auths = run2.map((x) => x.authorization);
    // The file wins over AGENT_API_KEY, and once rotated the old key is never sent again.
    expect(auths).not.toContain(`Bearer ${C.envKey.value}`);
    expect(auths[0]).toBe(`Bearer ${C.fileKey.value}`);
    const firstRotated = auths.indexOf(`Bearer ${C.rotatedKey.value}`);
    expect(firstRotated).toBeGreaterThan(0);
    expect(auths.slice(firstRotated).every((a) => a === `Bearer ${C.rotatedKey.value}`)).toBe(true);
    expect(platform.foreign.requests).toEqual([]);
  }, 60_000);

  it('the nodes got their credentials: URL Basic auth (also rotated by reload), env and file headers', () => {
    const basic = basicOf(C.urlPassword);
    const rotated = basicOf(C.urlPasswordRotated);
    // The good node's password was rotated by a reload in run 1: both were used, nothing else.
    expect(new Set(goodProxy.requests.map((r) => r.headers.authorization))).toEqual(new Set([basic, rotated]));
    for (const proxy of [goodProxy, badProxy]) {
      expect(proxy.requests.length).toBeGreaterThan(0);
      for (const r of proxy.requests) {
        expect([basic, rotated]).toContain(r.headers.authorization);
        expect(r.headers['x-api-key']).toBe(C.headerEnv.value);
        expect(r.headers['x-proxy-token']).toBe(C.headerFile.value);
      }
    }
  });

  it('check-config on the configs and on broken copies (a syntax error on a secret-bearing line)', async () => {
    const env = childEnv();
    for (const name of [ENV_CONFIG, FILE_CONFIG]) {
      const r = await runCli(['check-config', join(dir, name)], { env, cwd: dir });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      keepResult(`check-config ${name}`, r);
    }
    const text = configText();
    const pwLine = text.split('\n').find((l) => l.includes('url: http://'))!;
    const broken: Array<[string, string]> = [
      // YAML syntax errors on the line that holds the URL password.
      ['unclosed flow sequence on the url line', text.replace(pwLine, pwLine.replace('url: ', 'url: ['))],
      ['unclosed quote on the url line', text.replace(pwLine, pwLine.replace('url: ', 'url: "'))],
      ['mapping inside the url value', text.replace(pwLine, `${pwLine}: {`)],
      // The secret header line: syntax error after ${VAR} expansion would be a leak.
      ['unclosed quote on the header line', text.replace('x-api-key: ${NODE_TOKEN}', 'x-api-key: "${NODE_TOKEN}')],
      // Schema errors on secret values: wrong type, an invalid URL carrying the password.
      ['header value of the wrong type', text.replace('x-api-key: ${NODE_TOKEN}', 'x-api-key: ["${NODE_TOKEN}"]')],
      ['invalid port in a URL with a password', text.replace(pwLine, pwLine.replace(/:(\d+)$/, ':99999$1'))],
      [
        'URL with a password and a query',
        text.replace(pwLine, `${pwLine}/?token=${encodeURIComponent(C.urlPassword.value)}`),
      ],
    ];
    for (const [what, body] of broken) {
      expect(body, what).not.toBe(text);
      const file = join(dir, 'broken.yaml');
      await writeFile(file, body);
      const r = await runCli(['check-config', file], { env, cwd: dir });
      expect(r.code, `${what}: ${r.stdout}${r.stderr}`).toBe(1);
      expect(r.stdout, what).toMatch(/broken\.yaml:\d+:\d+: /);
      keepResult(`check-config broken copy (${what})`, r);
      // Start-up on the broken file reports the same problems, also without secrets.
      const s = await runCli(['--config', file, '--log-format', 'json'], { env, cwd: dir });
      expect(s.code, what).not.toBe(0);
      keepResult(`start-up on broken copy (${what})`, s);
    }
  }, 60_000);

  it('the evidence CLI output and every file under evidence.dir', async () => {
    const evDir = join(dir, 'evidence');
    const files = await filesUnder(evDir);
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const bytes = await readFile(f);
      keep(`evidence file ${f.slice(dir.length)} (utf8)`, bytes.toString('utf8'));
      keep(`evidence file ${f.slice(dir.length)} (latin1)`, bytes.toString('latin1'));
    }
    const total = (await Promise.all(files.map((f) => stat(f)))).reduce((a, s) => a + s.size, 0);
    expect(total).toBeGreaterThan(0);
    for (const args of [[], ['--json'], ['--summary'], ['--node', 'agent-platform', '--json'], ['--node', 'bad']]) {
      const r = await runCli(['evidence', '--dir', evDir, '--limit', '1000', ...args], { cwd: dir });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.length).toBeGreaterThan(0);
      keepResult(`evidence ${args.join(' ')}`, r);
    }
    // The CLI shows the records it read: both sources of evidence are there.
    const all = (await runCli(['evidence', '--dir', evDir, '--json', '--limit', '1000'], { cwd: dir })).stdout;
    expect(all).toContain('"node":"agent-platform"');
    expect(all).toContain('"node":"bad"');
  }, 30_000);

  it('crash output: an unusable evidence dir and a listen address already in use', async () => {
    const env = childEnv();
    // evidence.dir below a regular file cannot be created.
    await writeFile(join(dir, 'crash-evidence.yaml'), configText({ evidenceDir: './header-token.txt/evidence' }));
    const r1 = await runCli(
      ['--config', join(dir, 'crash-evidence.yaml'), '--log-level', 'debug', '--log-format', 'json'],
      { env, cwd: dir },
    );
    expect(r1.code, r1.stdout + r1.stderr).not.toBe(0);
    expect(r1.signal).toBeNull();
    expect(r1.stdout + r1.stderr).toMatch(/evidence|ENOTDIR|EEXIST/i);
    keepResult('crash: unusable evidence dir', r1);

    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    try {
      const port = (busy.address() as AddressInfo).port;
      const r2 = await runCli(
        [
          '--config',
          join(dir, ENV_CONFIG),
          '--listen',
          `127.0.0.1:${port}`,
          '--log-level',
          'debug',
          '--log-format',
          'json',
        ],
        { env, cwd: dir },
      );
      expect(r2.code, r2.stdout + r2.stderr).not.toBe(0);
      expect(r2.signal).toBeNull();
      expect(r2.stdout + r2.stderr).toMatch(/EADDRINUSE/);
      keepResult('crash: listen address in use', r2);
    } finally {
      await new Promise<void>((resolve) => busy.close(() => resolve()));
    }
    // A bad --listen value is a usage error.
    const r3 = await runCli(['--config', join(dir, ENV_CONFIG), '--listen', '127.0.0.1:notaport'], { env, cwd: dir });
    expect(r3.code).toBe(2);
    keepResult('usage error: bad --listen', r3);
  }, 60_000);

  it('a plain-http baseUrl off loopback is refused by check-config and at start-up, no key sent', async () => {
    const env = childEnv();
    const file = join(dir, 'plain-http.yaml');
    await writeFile(file, configText().replace(`baseUrl: ${platform.url}`, 'baseUrl: http://platform.example.org'));
    const check = await runCli(['check-config', file], { env, cwd: dir });
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/plain-http\.yaml:\d+:\d+: agentPlatform\.baseUrl: .*plain http/);
    keepResult('check-config plain-http baseUrl', check);
    const start = await runCli(['--config', file, '--log-format', 'json'], { env, cwd: dir });
    expect(start.code).toBe(1);
    expect(start.stderr).toMatch(/agentPlatform\.baseUrl: .*plain http/);
    expect(start.stdout).not.toContain('exporter listening');
    keepResult('start-up plain-http baseUrl', start);
  }, 30_000);

  it('no output holds any canary, raw, URL-encoded or base64', () => {
    // The search covered real content from every kind of output.
    const names = outputs.map((o) => o.name);
    for (const kind of [
      'run 1 daemon stdout',
      'run 2 daemon stdout',
      'run 1 GET /metrics (HTTP 200)',
      'run 1 GET / (HTTP 200)',
      'run 2 GET /api/evidence?limit=1000 (HTTP 200)',
    ]) {
      expect(names).toContain(kind);
      expect(outputs.find((o) => o.name === kind)!.text.length, kind).toBeGreaterThan(100);
    }
    expect(names.some((n) => n.startsWith('evidence file'))).toBe(true);
    expect(names.some((n) => n.startsWith('check-config broken copy'))).toBe(true);
    expect(names.some((n) => n.startsWith('crash:'))).toBe(true);

    const hits: CanaryHit[] = outputs.flatMap((o) => findCanaries(o.name, o.text, CANARIES));
    expect(hits).toEqual([]);
  });
});
