import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROBE_NAMES } from '../../src/domain.js';
import { ConfigError, expandString, formatProblem, parseConfig, secretsOf } from '../../src/config/index.js';

const yaml = (...lines: string[]) => `${lines.join('\n')}\n`;
const FILE = path.join(path.sep, 'etc', 'lfe', 'fleet.yaml');
const parse = (text: string, env: Record<string, string> = {}) => parseConfig(text, { file: FILE, env });

function allProblemText(text: string, env: Record<string, string>): string {
  try {
    parse(text, env);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return [e.message, ...e.problems.map(formatProblem), ...e.problems.map((p) => `${p.path} ${p.message}`)].join('\n');
  }
  throw new Error('expected a ConfigError');
}

describe('defaults', () => {
  it('fills every field when only the nodes are given', () => {
    const c = parse(yaml('nodes:', '  - name: a', '    url: http://10.0.0.1:9710'));
    expect(c).toEqual({
      listen: { host: '0.0.0.0', port: 9715 },
      polling: {
        concurrency: 64,
        maxResponseBytes: 4 * 1024 * 1024,
        // The documented per-node budget (README "Upstream budget").
        maxUpstreamSeries: 2000,
        maxUpstreamBytes: 512 * 1024,
        maxUpstreamFamilies: 1000,
        maxUpstreamHelpChars: 1024,
        maxValidators: 10_000,
      },
      nodes: [
        {
          name: 'a',
          url: 'http://10.0.0.1:9710',
          network: 'default',
          labels: {},
          intervalMs: 15_000,
          timeoutMs: 5_000,
          rpcNamespace: 'auto',
          probes: [...PROBE_NAMES],
          headers: {},
        },
      ],
      networks: { default: { decimals: 9, epochBlocks: 100 } },
      evidence: {
        dir: path.join(path.sep, 'etc', 'lfe', 'data', 'evidence'),
        maxBytes: 256 * 1024 * 1024,
        maxAgeDays: 30,
      },
    });
  });

  it('every node inherits the defaults section, and any field may be overridden per node', () => {
    const c = parse(
      yaml(
        'defaults:',
        '  interval: 20s',
        '  timeout: 2s',
        '  rpcNamespace: claw',
        '  probes: [health, blockNumber]',
        '  headers: {X-Proxy-Token: abcd1234, X-Tenant: blue}',
        'nodes:',
        '  - name: inherits',
        '    url: http://10.0.0.1:9710',
        '  - name: overrides',
        '    url: https://rpc.example.org/ledger',
        '    interval: 1m',
        '    timeout: 30s',
        '    rpcNamespace: clw',
        '    probes: [validators]',
        '    headers: {x-tenant: green, Authorization: {file: secrets/token}}',
      ),
    );
    const [a, b] = c.nodes;
    expect(a).toMatchObject({
      intervalMs: 20_000,
      timeoutMs: 2_000,
      rpcNamespace: 'claw',
      probes: ['health', 'blockNumber'],
    });
    expect(a?.headers).toEqual({ 'X-Proxy-Token': { value: 'abcd1234' }, 'X-Tenant': { value: 'blue' } });
    expect(b).toMatchObject({ intervalMs: 60_000, timeoutMs: 30_000, rpcNamespace: 'clw', probes: ['validators'] });
    // headers merge by case-insensitive name; the node's own wins; file paths resolve against the config directory
    expect(b?.headers).toEqual({
      'X-Proxy-Token': { value: 'abcd1234' },
      'x-tenant': { value: 'green' },
      Authorization: { file: path.join(path.sep, 'etc', 'lfe', 'secrets', 'token') },
    });
  });

  it('sections convert units, keep absolute paths and list every network in use', () => {
    const c = parse(
      yaml(
        'listen: "[::1]:9100"',
        'polling: {concurrency: 8, maxResponseBytes: 1MB, maxUpstreamSeries: 50, maxUpstreamBytes: 64KiB, ' +
          'maxUpstreamFamilies: 20, maxUpstreamHelpChars: 80, maxValidators: 5}',
        'networks: {mainnet: {decimals: 18}, unused: {}}',
        'nodes:',
        '  - {name: a, url: "http://h:1", network: mainnet, labels: {region: eu}}',
        '  - {name: b, url: "http://h:2", network: testnet}',
        'evidence: {dir: /var/lib/lfe, maxBytes: 1048576, maxAgeDays: 7}',
        'agentPlatform: {baseUrl: "https://p.example.org", apiKeyFile: keys/agent, interval: 1m, timeout: 5s}',
      ),
    );
    expect(c.listen).toEqual({ host: '::1', port: 9100 });
    expect(c.polling).toEqual({
      concurrency: 8,
      maxResponseBytes: 1_000_000,
      maxUpstreamSeries: 50,
      maxUpstreamBytes: 65_536,
      maxUpstreamFamilies: 20,
      maxUpstreamHelpChars: 80,
      maxValidators: 5,
    });
    expect(c.networks).toEqual({
      mainnet: { decimals: 18, epochBlocks: 100 },
      testnet: { decimals: 9, epochBlocks: 100 },
      unused: { decimals: 9, epochBlocks: 100 },
    });
    expect(c.nodes[0]?.labels).toEqual({ region: 'eu' });
    expect(c.evidence).toEqual({ dir: '/var/lib/lfe', maxBytes: 1_048_576, maxAgeDays: 7 });
    expect(c.agentPlatform).toEqual({
      baseUrl: 'https://p.example.org',
      apiKeyEnv: 'AGENT_API_KEY',
      apiKeyFile: path.join(path.sep, 'etc', 'lfe', 'keys', 'agent'),
      intervalMs: 60_000,
      timeoutMs: 5_000,
    });
  });
});

describe('${VAR} expansion', () => {
  it('replaces variables in string values from the given env', () => {
    const c = parse(
      yaml(
        'listen: ${LISTEN}',
        'nodes:',
        '  - name: a',
        '    url: http://${HOST}:${PORT}/ledger',
        '    labels: {region: "${REGION}-1"}',
      ),
      { LISTEN: '127.0.0.1:9999', HOST: '10.1.2.3', PORT: '9710', REGION: 'eu' },
    );
    expect(c.listen).toEqual({ host: '127.0.0.1', port: 9999 });
    expect(c.nodes[0]?.url).toBe('http://10.1.2.3:9710/ledger');
    expect(c.nodes[0]?.labels).toEqual({ region: 'eu-1' });
  });

  it('keys are never expanded', () => {
    const all = allProblemText(yaml('nodes:', '  - name: a', '    url: http://h:1', '    labels: {"${KEY}": x}'), {
      KEY: 'valid_name',
    });
    expect(all).toContain('nodes[0].labels["${KEY}"]: invalid label name "${KEY}"');
  });

  it('$${ is a literal ${, and a lone $ stays', () => {
    const c = parse(
      yaml('nodes:', '  - name: a', '    url: http://h:1', '    labels: {tpl: "$${HOME} costs $5 and $${X}${Y}"}'),
      { HOME: 'bad', Y: 'y' },
    );
    expect(c.nodes[0]?.labels.tpl).toBe('${HOME} costs $5 and ${X}y');
    expect(expandString('a$$${B}', { B: 'b' })).toEqual({ value: 'a$${B}', missing: [], malformed: false });
  });

  it('an expanded value is data, never YAML', () => {
    const c = parse(yaml('nodes:', '  - name: a', '    url: http://h:1', '    labels: {note: "${NOTE}"}'), {
      NOTE: 'x\nnodes: []\n  - name: evil',
    });
    expect(c.nodes).toHaveLength(1);
    expect(c.nodes[0]?.labels.note).toBe('x\nnodes: []\n  - name: evil');
  });

  it('an empty variable is set (to the empty string)', () => {
    const c = parse(yaml('nodes:', '  - name: a', '    url: http://h${SUFFIX}:1'), { SUFFIX: '' });
    expect(c.nodes[0]?.url).toBe('http://h:1');
  });
});

describe('secrets never appear in problems', () => {
  const env = {
    BAD_DURATION: 'topsecret-duration-value',
    SECRET_URL: 'http://admin:pw-from-env-4242@10.0.0.1:9710/?token=query-secret-777',
    WEIRD_URL: 'sek:ret-scheme-555',
    TOKEN: 'tok-abcdef-123456',
    LISTEN: 'listen-secret-8888',
  };
  const text = yaml(
    'listen: ${LISTEN}',
    'defaults:',
    '  interval: ${BAD_DURATION}',
    '  headers:',
    '    Authorization: "Bearer ${TOKEN}\\r\\nX-Evil: 1"',
    'nodes:',
    '  - name: a',
    '    url: http://user:literal-pass-9999@10.0.0.1:9710/x?y=1',
    '  - name: b',
    '    url: ${SECRET_URL}',
    '  - name: c',
    '    url: ${WEIRD_URL}',
    '    timeout: ${BAD_DURATION}',
    'agentPlatform: {baseUrl: "http://u:agent-pass-3333@platform.example.org"}',
  );

  it('messages name the problem without quoting values', () => {
    const all = allProblemText(text, env);
    // every bad value was reported ...
    expect(all).toContain('defaults.interval: invalid duration');
    expect(all).toContain('nodes[0].url: URL must not have a query string');
    expect(all).toContain('nodes[1].url: URL must not have a query string');
    expect(all).toContain('nodes[2].url: URL scheme must be http or https');
    expect(all).toContain('defaults.headers.Authorization: header value must not contain line breaks');
    expect(all).toContain('agentPlatform.baseUrl: URL must not contain credentials');
    expect(all).toContain('listen: expected host:port');
    // ... and no secret, nor a recognisable piece of one, is in any message
    for (const secret of [
      'topsecret',
      'pw-from-env',
      'query-secret',
      'ret-scheme',
      'tok-abcdef',
      'literal-pass',
      'agent-pass',
      'listen-secret',
      'sek:',
    ]) {
      expect(all).not.toContain(secret);
    }
  });

  it('the secrets of a resolved config cover URL credentials, their Basic token and header values', () => {
    const good = yaml(
      'defaults: {headers: {Authorization: "Bearer ${TOKEN2}", X-Api-Key: {file: /k}}}',
      'nodes:',
      '  - {name: a, url: "https://svc:${PW}@rpc.example.org/ledger", headers: {X-Key: node-header-secret-1}}',
    );
    const c = parse(good, { TOKEN2: 'bearer-token-xyz-42', PW: 'p@ss w0rd-61' });
    expect(c.nodes[0]?.url).toBe('https://svc:p@ss w0rd-61@rpc.example.org/ledger');
    const basic = Buffer.from('svc:p@ss w0rd-61').toString('base64');
    const leaked =
      `token bearer-token-xyz-42, header Bearer bearer-token-xyz-42, pw p@ss w0rd-61, encoded ` +
      `${encodeURIComponent('p@ss w0rd-61')}, node-header-secret-1, Basic ${basic}`;
    const scrubbed = secretsOf(c).scrub(leaked);
    for (const secret of [
      'bearer-token-xyz-42',
      'p@ss w0rd-61',
      encodeURIComponent('p@ss w0rd-61'),
      'node-header-secret-1',
      basic,
    ]) {
      expect(scrubbed).not.toContain(secret);
    }
  });
});
