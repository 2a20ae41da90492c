import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSchemaJson, loadConfigFile, parseConfig, runCheckConfig } from '../../src/config/index.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const configDir = path.join(root, 'config');
// The repository carries its copy of the shared spec, so this runs (and can fail) everywhere.
const CONTRACT_SPEC = path.join(root, 'test', 'fixtures', 'spec', 'exporter-contract.md');

describe('example configs', () => {
  it('config/example-small.yaml is valid', async () => {
    const c = await loadConfigFile(path.join(configDir, 'example-small.yaml'), {});
    expect(c.nodes.map((n) => n.name)).toEqual(['node-1', 'node-2', 'node-3']);
    expect(c.listen).toEqual({ host: '127.0.0.1', port: 9715 });
  });

  it('config/example-fleet.yaml is valid with its documented variables, and names each missing one', async () => {
    const file = path.join(configDir, 'example-fleet.yaml');
    const env = {
      LEDGER_RPC_PROXY_TOKEN: 'proxy-token-1',
      LEDGER_ARCHIVE_PASSWORD: 'archive-pw-2',
      AGENT_PLATFORM_URL: 'https://agents.example.org',
    };
    const c = await loadConfigFile(file, env);
    expect(new Set(c.nodes.map((n) => n.network))).toEqual(new Set(['mainnet', 'testnet']));
    const rpc = c.nodes.find((n) => n.name === 'rpc-public');
    expect(rpc).toMatchObject({
      url: 'https://rpc.example.org/ledger',
      intervalMs: 30_000,
      probes: ['health', 'blockNumber'],
    });
    expect(rpc?.headers).toEqual({ Authorization: { value: 'Bearer proxy-token-1' } });
    expect(c.nodes.find((n) => n.name === 'test-val-1')?.rpcNamespace).toBe('clw');
    expect(c.agentPlatform?.baseUrl).toBe('https://agents.example.org');

    const lines: string[] = [];
    expect(await runCheckConfig(file, (l) => lines.push(l), {})).toBe(1);
    const missing = lines.filter((l) => l.includes('is not set')).map((l) => /"([A-Z_]+)" is not set/.exec(l)?.[1]);
    expect(new Set(missing)).toEqual(new Set(Object.keys(env)));
  });

  it('config/contract-example.yaml is valid as written', async () => {
    const c = await loadConfigFile(path.join(configDir, 'contract-example.yaml'), {});
    expect(c.nodes.map((n) => [n.name, n.network, n.intervalMs])).toEqual([
      ['val-eu-1', 'mainnet', 15_000],
      ['rpc-public', 'default', 30_000],
    ]);
  });

  it('config/contract-example.yaml is the contract example verbatim', async () => {
    const spec = await readFile(CONTRACT_SPEC, 'utf8');
    const block = /## Configuration \(YAML\)\n```yaml\n([\s\S]*?)```/.exec(spec)?.[1];
    expect(block).toBeTruthy();
    expect(await readFile(path.join(configDir, 'contract-example.yaml'), 'utf8')).toBe(block);
  });
});

describe('config/schema.json', () => {
  it('is what the code generates (run the schema script after changing the schema)', async () => {
    expect(await readFile(path.join(configDir, 'schema.json'), 'utf8')).toBe(generateSchemaJson());
  });

  it('describes the input form: required nodes, defaults, no unknown keys', () => {
    const schema = JSON.parse(generateSchemaJson()) as {
      required: string[];
      additionalProperties: boolean;
      properties: Record<string, { default?: unknown; properties?: Record<string, { default?: unknown }> }>;
    };
    expect(schema.required).toEqual(['nodes']);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.listen?.default).toBe('0.0.0.0:9715');
    expect(schema.properties.defaults?.properties?.interval?.default).toBe('15s');
    expect(schema.properties.evidence?.properties?.maxBytes?.default).toBe('256MiB');
  });
});

describe('runCheckConfig', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'lfe-config-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('exit 0 and a summary for a valid file', async () => {
    const file = path.join(dir, 'ok.yaml');
    await writeFile(
      file,
      'nodes:\n  - {name: a, url: "http://h:1", network: x}\n  - {name: b, url: "http://h:2", network: y}\n',
    );
    const lines: string[] = [];
    expect(await runCheckConfig(file, (l) => lines.push(l), {})).toBe(0);
    expect(lines).toEqual([`${file}: OK (2 nodes in 2 networks)`]);
  });

  it('exit 1 and every problem as file:line:col, then a count', async () => {
    const file = path.join(dir, 'bad.yaml');
    await writeFile(file, 'nodes:\n  - name: a\n    url: ftp://h\n    interval: 10\n    extra: 1\n');
    const lines: string[] = [];
    expect(await runCheckConfig(file, (l) => lines.push(l), {})).toBe(1);
    expect(lines).toEqual([
      `${file}:3:10: nodes[0].url: URL scheme must be http or https`,
      `${file}:4:15: nodes[0].interval: invalid duration: expected a number with a unit (ns, us, ms, s, m, h), ` +
        `e.g. 500ms, 15s, 2m, 1h30m`,
      `${file}:5:5: nodes[0].extra: unknown key "extra"; known keys: name, url, network, labels, interval, ` +
        `timeout, rpcNamespace, probes, headers, tls`,
      `${file}: 3 problems found`,
    ]);
  });

  it('exit 1 for a YAML syntax error, without echoing the source line', async () => {
    const file = path.join(dir, 'syntax.yaml');
    await writeFile(file, 'nodes:\n  - name: a\n    url: "http://u:syntax-secret-77@h:1\n');
    const lines: string[] = [];
    expect(await runCheckConfig(file, (l) => lines.push(l), {})).toBe(1);
    expect(lines[0]).toMatch(
      new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+: YAML syntax error: `),
    );
    expect(lines.join('\n')).not.toContain('syntax-secret');
  });

  it('exit 2 for a missing file or a directory', async () => {
    for (const target of [
      path.join(dir, 'absent.yaml'),
      await mkdir(path.join(dir, 'a-dir'), { recursive: true }).then(() => path.join(dir, 'a-dir')),
    ]) {
      const lines: string[] = [];
      expect(await runCheckConfig(target, (l) => lines.push(l), {})).toBe(2);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`: cannot read configuration file \\((ENOENT|EISDIR)\\)$`));
    }
  });

  it('loadConfigFile resolves relative paths against the file directory and rejects unreadable files', async () => {
    const sub = path.join(dir, 'etc');
    await mkdir(sub, { recursive: true });
    const file = path.join(sub, 'fleet.yaml');
    await writeFile(file, 'nodes:\n  - {name: a, url: "http://h:1"}\nevidence: {dir: ../state/evidence}\n');
    expect((await loadConfigFile(file, {})).evidence.dir).toBe(path.join(dir, 'state', 'evidence'));
    await expect(loadConfigFile(path.join(dir, 'nope.yaml'), {})).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('parseConfig reads process.env when no env is given', () => {
    const name = `LFE_TEST_HOST_${process.pid}`;
    process.env[name] = '10.9.8.7';
    try {
      const c = parseConfig(`nodes:\n  - {name: a, url: "http://\${${name}}:1"}\n`, { file: 'x.yaml' });
      expect(c.nodes[0]?.url).toBe('http://10.9.8.7:1');
    } finally {
      delete process.env[name];
    }
  });
});

describe('config/example-alerting.yaml', () => {
  const file = path.join(configDir, 'example-alerting.yaml');

  it('is valid: every receiver kind, routes, overrides, maintenance and heartbeat', async () => {
    const c = await loadConfigFile(file, { HOOK_AUTH: 'Token hook-1' });
    const a = c.alerting!;
    expect(a.receivers.map((r) => [r.name, r.kind])).toEqual([
      ['am', 'alertmanager'],
      ['ops-hook', 'webhook'],
      ['slack', 'slack'],
      ['pager', 'pagerduty'],
    ]);
    expect(a.routing.routes.map((r) => r.receivers)).toEqual([['pager', 'slack', 'am'], [], ['slack', 'am']]);
    expect(a.rules.LedgerNodeBehindFleet).toMatchObject({ threshold: 20, forMs: 300_000 });
    expect(a.maintenance.map((w) => w.name)).toEqual(['weekly-upgrade', 'disk-swap']);
    expect(a.heartbeat?.intervalMs).toBe(60_000);
  });

  it('holds the contract example of the alerting section verbatim', async () => {
    const spec = await readFile(CONTRACT_SPEC, 'utf8');
    const block = /## Built-in alerting[^\n]*\n[\s\S]*?```yaml\n([\s\S]*?)```/.exec(spec)?.[1];
    expect(block).toBeTruthy();
    expect(await readFile(file, 'utf8')).toContain(block);
  });
});
