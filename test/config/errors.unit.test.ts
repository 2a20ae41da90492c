import { describe, expect, it } from 'vitest';
import { formatProblem, parseConfig } from '../../src/config/index.js';
import { configError, configProblems, yaml } from '../support/configProblems.js';

const FILE = 'fleet.yaml';
const NODE = ['nodes:', '  - name: a', '    url: http://10.0.0.1:9710'];

const problems = (text: string, env: Record<string, string> = {}) => configProblems(text, { file: FILE, env });

describe('parseConfig problems carry file:line:col and the key path', () => {
  it('unknown key at the top level, with the known keys listed', () => {
    expect(problems(yaml('listen: 0.0.0.0:9715', 'bogus: 1', ...NODE))).toEqual([
      'fleet.yaml:2:1: bogus: unknown key "bogus"; known keys: listen, defaults, polling, networks, nodes, ' +
        'evidence, agentPlatform, alerting, sharding, watch',
    ]);
  });

  it('unknown nested keys, with a suggestion for typos', () => {
    expect(
      problems(
        yaml(
          ...NODE,
          '    intervall: 15s',
          'evidence:',
          '  maxBytez: 1MiB',
          'defaults:',
          '  headers:',
          '    X-A: {file: /k, mode: 1}',
        ),
      ),
    ).toEqual([
      'fleet.yaml:4:5: nodes[0].intervall: unknown key "intervall" (did you mean "interval"?)',
      'fleet.yaml:6:3: evidence.maxBytez: unknown key "maxBytez" (did you mean "maxBytes"?)',
      'fleet.yaml:9:21: defaults.headers["X-A"].mode: unknown key "mode"; known keys: file',
    ]);
  });

  it('duplicate node names (case-insensitive), pointing at the later one', () => {
    expect(
      problems(
        yaml(...NODE, '  - name: b', '    url: http://10.0.0.2:9710', '  - name: A', '    url: http://10.0.0.3:9710'),
      ),
    ).toEqual(['fleet.yaml:6:11: nodes[2].name: duplicate node name "A" (already used by nodes[0])']);
  });

  it('bad node names', () => {
    expect(
      problems(
        yaml('nodes:', '  - name: -a', '    url: http://h:1', `  - name: ${'n'.repeat(129)}`, '    url: http://h:2'),
      ),
    ).toEqual([
      'fleet.yaml:2:11: nodes[0].name: node name must start with a letter or digit and contain only letters, ' +
        'digits, ".", "_" and "-"',
      'fleet.yaml:4:11: nodes[1].name: node name must be at most 128 characters',
    ]);
  });

  it('bad URLs: scheme, syntax, query, fragment, no host', () => {
    expect(
      problems(
        yaml(
          'nodes:',
          '  - name: a',
          '    url: ftp://10.0.0.1/x',
          '  - name: b',
          '    url: not a url',
          '  - name: c',
          '    url: http://10.0.0.1:9710/?x=1',
          '  - name: d',
          '    url: http://10.0.0.1:9710/#top',
          '  - name: e',
          '    url: "http://:9710"',
        ),
      ),
    ).toEqual([
      'fleet.yaml:3:10: nodes[0].url: URL scheme must be http or https',
      'fleet.yaml:5:10: nodes[1].url: invalid URL: expected e.g. http://10.0.0.5:9710 or ' +
        'https://rpc.example.org/ledger',
      'fleet.yaml:7:10: nodes[2].url: URL must not have a query string',
      'fleet.yaml:9:10: nodes[3].url: URL must not have a fragment',
      'fleet.yaml:11:10: nodes[4].url: invalid URL: expected e.g. http://10.0.0.5:9710 or ' +
        'https://rpc.example.org/ledger',
    ]);
  });

  it('bad durations, in defaults and per node', () => {
    expect(problems(yaml('defaults:', '  interval: 15', ...NODE, '    timeout: 2d', '    interval: 0s'))).toEqual([
      'fleet.yaml:2:13: defaults.interval: invalid duration: expected a number with a unit (ns, us, ms, s, m, ' +
        'h), e.g. 500ms, 15s, 2m, 1h30m',
      'fleet.yaml:6:14: nodes[0].timeout: invalid duration: unknown unit; expected a number with a unit (ns, us, ' +
        'ms, s, m, h), e.g. 500ms, 15s, 2m, 1h30m',
      'fleet.yaml:7:15: nodes[0].interval: duration must be at least 100ms',
    ]);
  });

  it('durations are whole milliseconds above a floor per field: no 1ns poll interval', () => {
    expect(
      problems(
        yaml(
          'defaults: {interval: 1ns, timeout: 1500us}',
          ...NODE,
          '    interval: 99ms',
          '    timeout: 150.5ms',
          'agentPlatform:',
          '  baseUrl: https://p.example.org',
          '  interval: 0.5us',
          '  timeout: 10ms',
        ),
      ),
    ).toEqual([
      'fleet.yaml:1:22: defaults.interval: duration must be at least 100ms',
      'fleet.yaml:1:36: defaults.timeout: duration must be at least 100ms',
      'fleet.yaml:5:15: nodes[0].interval: duration must be at least 100ms',
      'fleet.yaml:6:14: nodes[0].timeout: duration must be a whole number of milliseconds',
      'fleet.yaml:9:13: agentPlatform.interval: duration must be at least 100ms',
      'fleet.yaml:10:12: agentPlatform.timeout: duration must be at least 100ms',
    ]);
    // The floors themselves, fractions that come to whole milliseconds (exactly: 1.005s is 1005 ms), and sub-ms units
    // that do.
    const c = parseConfig(
      yaml(
        'defaults: {interval: 100ms, timeout: 100000us}',
        ...NODE,
        '    interval: 1.005s',
        'agentPlatform: {baseUrl: "https://p.example.org", interval: 0.1s, timeout: 100000000ns}',
      ),
      { file: FILE, env: {} },
    );
    expect(c.nodes[0]).toMatchObject({ intervalMs: 1005, timeoutMs: 100 });
    expect(c.agentPlatform).toMatchObject({ intervalMs: 100, timeoutMs: 100 });
  });

  it('timeout > interval is refused where set; equal, inherited and built-in timeouts never fail', () => {
    // a node's own timeout above the interval it inherits
    expect(problems(yaml('defaults: {interval: 10s}', ...NODE, '    timeout: 11s'))).toEqual([
      'fleet.yaml:5:14: nodes[0].timeout: timeout must not exceed interval (timeout from nodes[0].timeout, ' +
        'interval from defaults.interval)',
    ]);
    // a default timeout above the built-in interval is reported once, at the default
    expect(
      problems(yaml('defaults:', '  timeout: 20s', ...NODE, '  - name: b', '    url: http://10.0.0.2:9710')),
    ).toEqual([
      'fleet.yaml:2:12: defaults.timeout: timeout must not exceed interval (timeout from defaults.timeout, ' +
        'interval from the built-in default 15s)',
    ]);
    const ok = (...lines: string[]) => parseConfig(yaml(...lines), { file: FILE, env: {} });
    // timeout equal to interval is accepted (Prometheus accepts scrape_timeout == scrape_interval)
    expect(ok(...NODE, '    interval: 1s', '    timeout: 1s').nodes[0]).toMatchObject({
      intervalMs: 1000,
      timeoutMs: 1000,
    });
    // an unset timeout is min(inherited, interval): the built-in 5s never fails a 1s interval
    expect(ok(...NODE, '    interval: 1s').nodes[0]).toMatchObject({ intervalMs: 1000, timeoutMs: 1000 });
    expect(ok('defaults: {interval: 2s}', ...NODE).nodes[0]).toMatchObject({ intervalMs: 2000, timeoutMs: 2000 });
    // an inherited explicit default timeout is lowered to a node's shorter interval, as a job's is
    expect(ok('defaults: {timeout: 10s}', ...NODE, '    interval: 3s').nodes[0]).toMatchObject({
      intervalMs: 3000,
      timeoutMs: 3000,
    });
    expect(ok(...NODE).nodes[0]).toMatchObject({ intervalMs: 15_000, timeoutMs: 5000 });
    // the defaults are checked on their own, as Prometheus checks `global`, even when every node overrides them
    expect(() => ok('defaults:', '  timeout: 20s', ...NODE, '    interval: 1m', '    timeout: 20s')).toThrow(
      /defaults\.timeout/,
    );
  });

  it('bad label names and reserved labels, pointing at the key', () => {
    expect(
      problems(
        yaml(
          ...NODE,
          '    labels:',
          '      bad-name: x',
          '      instance: y',
          '      __meta: z',
          '      rack: 12',
          '      ok_name: fine',
        ),
      ),
    ).toEqual([
      'fleet.yaml:5:7: nodes[0].labels["bad-name"]: invalid label name "bad-name": must match [a-zA-Z_][a-zA-Z0-9_]*',
      'fleet.yaml:6:7: nodes[0].labels.instance: label "instance" is reserved (the exporter sets node, network, ' +
        'version, chain_id, rpc_namespace, job, instance)',
      'fleet.yaml:7:7: nodes[0].labels.__meta: invalid label name "__meta": names starting with "__" are ' +
        'reserved by Prometheus',
      'fleet.yaml:8:13: nodes[0].labels.rack: label values must be strings (quote numbers, e.g. "12")',
    ]);
  });

  it('probes: unknown names, duplicates, empty list', () => {
    expect(
      problems(
        yaml(...NODE, '    probes: [health, blocks, health]', '  - name: b', '    url: http://h:1', '    probes: []'),
      ),
    ).toEqual([
      'fleet.yaml:4:22: nodes[0].probes[1]: unknown probe: expected one of health, metrics, blockNumber, ' +
        'miningStats, validators',
      'fleet.yaml:4:30: nodes[0].probes[2]: probe "health" is listed twice',
      'fleet.yaml:7:13: nodes[1].probes: at least one probe is required',
    ]);
  });

  it('a missing environment variable is reported at its value, once', () => {
    expect(problems(yaml('nodes:', '  - name: a', '    url: http://${NODE_HOST}:9710'))).toEqual([
      'fleet.yaml:3:10: nodes[0].url: environment variable "NODE_HOST" is not set',
    ]);
  });

  it('malformed variable references', () => {
    expect(problems(yaml(...NODE, '    labels: {a: "${1X}", b: "${OPEN"}'))).toEqual([
      'fleet.yaml:4:17: nodes[0].labels.a: malformed variable reference: use ${NAME} with NAME made of letters, ' +
        'digits and "_", or $${ for a literal "${"',
      'fleet.yaml:4:29: nodes[0].labels.b: malformed variable reference: use ${NAME} with NAME made of letters, ' +
        'digits and "_", or $${ for a literal "${"',
    ]);
  });

  it('YAML syntax errors stop further checks and carry their position', () => {
    const ps = problems(yaml('listen: 0.0.0.0:9715', 'nodes:', '  - name: "a', '    url: http://h:1'));
    expect(ps).toHaveLength(1);
    expect(ps[0]).toMatch(/^fleet\.yaml:5:1: YAML syntax error: Missing closing "quote/);
    expect(problems(yaml('nodes: [', 'bogus: 1'))).toEqual([
      expect.stringMatching(/^fleet\.yaml:2:1: YAML syntax error: /),
    ]);
  });

  it('alias bombs are refused, plain anchors and aliases work', () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (const n of ['b', 'c', 'd', 'e'])
      bomb.push(
        `${n}: &${n} [${Array(10)
          .fill(`*${String.fromCharCode(n.charCodeAt(0) - 1)}`)
          .join(', ')}]`,
      );
    expect(problems(yaml(...bomb, ...NODE))).toEqual([
      expect.stringMatching(/^fleet\.yaml:1:1: cannot read YAML: .*alias/i),
    ]);
    const c = parseConfig(
      yaml(
        'nodes:',
        '  - {name: a, url: "http://h:1", labels: &l {region: eu}}',
        '  - {name: b, url: "http://h:2", labels: *l}',
      ),
      { file: FILE, env: {} },
    );
    expect(c.nodes[1]?.labels).toEqual({ region: 'eu' });
  });

  it('duplicate YAML keys name the key and its first line', () => {
    expect(problems(yaml('listen: 0.0.0.0:1', ...NODE, 'listen: 0.0.0.0:2', '    '))).toEqual([
      'fleet.yaml:5:1: listen: duplicate key "listen" (first defined on line 1)',
    ]);
    expect(problems(yaml(...NODE, '    name: b'))).toEqual([
      'fleet.yaml:4:5: nodes[0].name: duplicate key "name" (first defined on line 2)',
    ]);
  });

  it('wrong types', () => {
    expect(
      problems(
        yaml(
          'polling: {concurrency: many, maxUpstreamSeries: 1.5}',
          'networks: {main: {decimals: "9"}}',
          ...NODE,
          '    probes: health',
          '    headers: [a]',
        ),
      ),
    ).toEqual([
      'fleet.yaml:1:24: polling.concurrency: expected number, received string',
      'fleet.yaml:1:49: polling.maxUpstreamSeries: expected int, received number',
      'fleet.yaml:2:29: networks.main.decimals: expected number, received string',
      'fleet.yaml:6:13: nodes[0].probes: expected array, received string',
      'fleet.yaml:7:14: nodes[0].headers: expected record, received array',
    ]);
    expect(problems(yaml('nodes: {a: 1}'))).toEqual(['fleet.yaml:1:8: nodes: expected array, received object']);
  });

  it('a missing required key says "missing" whatever its schema: union, format, pattern, plain', () => {
    const A = 'a'.repeat(64);
    expect(
      problems(
        yaml(
          ...NODE,
          'alerting:',
          '  receivers:',
          '    - name: tg',
          '      telegram: {botToken: "123:abc"}',
          '    - name: mail',
          '      email: {smarthost: "smtp.example.org:587", to: [oncall@example.org]}',
          '    - name: mail2',
          '      email: {smarthost: "smtp.example.org:587", from: not-an-address, to: [oncall@example.org]}',
          '    - name: hook',
          '      webhook: {}',
          'watch:',
          '  validators:',
          '    - {name: v}',
          `    - {name: w, address: ${A}}`,
        ),
      ),
    ).toEqual([
      'fleet.yaml:7:17: alerting.receivers[0].telegram.chatId: missing required key "chatId"',
      'fleet.yaml:9:14: alerting.receivers[1].email.from: missing required key "from"',
      'fleet.yaml:11:56: alerting.receivers[2].email.from: expected an e-mail address such as oncall@example.org',
      'fleet.yaml:13:16: alerting.receivers[3].webhook.url: missing required key "url"',
      'fleet.yaml:16:7: watch.validators[0].address: missing required key "address"',
    ]);
  });

  it('missing required node keys point at the node', () => {
    expect(problems(yaml('nodes:', '  - name: a', '  - url: http://h:1'))).toEqual([
      'fleet.yaml:2:5: nodes[0].url: missing required key "url"',
      'fleet.yaml:3:5: nodes[1].name: missing required key "name"',
    ]);
  });

  it('an empty fleet is an error with a clear message', () => {
    const msg = 'no nodes configured: at least one node is required';
    expect(problems(yaml('nodes: []'))).toEqual([`fleet.yaml:1:8: nodes: ${msg}`]);
    expect(problems(yaml('listen: 0.0.0.0:9715'))).toEqual([`fleet.yaml:1:1: nodes: ${msg}`]);
    expect(problems('')).toEqual(['fleet.yaml:1:1: configuration is empty: at least one node is required']);
    expect(problems('# only a comment\n')).toEqual([
      'fleet.yaml:1:1: configuration is empty: at least one node is required',
    ]);
  });

  it('agentPlatform: plain http only on loopback, no credentials in the URL', () => {
    expect(problems(yaml(...NODE, 'agentPlatform:', '  baseUrl: http://platform.example.org'))).toEqual([
      'fleet.yaml:5:12: agentPlatform.baseUrl: plain http is allowed only for a loopback host (127.0.0.0/8, ::1, ' +
        'localhost): the API key would travel unencrypted; use https',
    ]);
    expect(problems(yaml(...NODE, 'agentPlatform:', '  baseUrl: https://u:p@platform.example.org'))).toEqual([
      'fleet.yaml:5:12: agentPlatform.baseUrl: URL must not contain credentials: the API key comes from ' +
        'apiKeyEnv or apiKeyFile',
    ]);
    for (const url of [
      'http://127.0.0.1:8080',
      'http://127.3.2.1',
      'http://[::1]:8080',
      'http://localhost:8080/api',
      'https://platform.example.org',
    ]) {
      const c = parseConfig(yaml(...NODE, 'agentPlatform:', `  baseUrl: "${url}"`), { file: FILE, env: {} });
      expect(c.agentPlatform?.baseUrl).toBe(url);
    }
  });

  it('agentPlatform: timeout at most interval, unset is min(10s, interval), durations bounded', () => {
    expect(
      problems(
        yaml(
          ...NODE,
          'agentPlatform:',
          '  baseUrl: https://p.example.org',
          '  interval: 30s',
          '  timeout: 31s',
          '  apiKeyEnv: 1BAD',
        ),
      ),
    ).toEqual([
      'fleet.yaml:7:12: agentPlatform.timeout: timeout must not exceed interval (timeout from ' +
        'agentPlatform.timeout, interval from agentPlatform.interval)',
      'fleet.yaml:8:14: agentPlatform.apiKeyEnv: apiKeyEnv must be an environment variable name',
    ]);
    const ap = (...lines: string[]) =>
      parseConfig(yaml(...NODE, 'agentPlatform:', '  baseUrl: https://p.example.org', ...lines), {
        file: FILE,
        env: {},
      }).agentPlatform;
    expect(ap('  interval: 1s')).toMatchObject({ intervalMs: 1000, timeoutMs: 1000 });
    expect(ap('  interval: 30s', '  timeout: 30s')).toMatchObject({ intervalMs: 30_000, timeoutMs: 30_000 });
    expect(ap()).toMatchObject({ intervalMs: 300_000, timeoutMs: 10_000 });
    expect(problems(yaml(...NODE, '    interval: 25h', '    headers: {X-A: {file: ""}}'))).toEqual([
      'fleet.yaml:4:15: nodes[0].interval: duration must be at most 24h',
      'fleet.yaml:5:27: nodes[0].headers["X-A"].file: file must not be empty',
    ]);
  });

  it('listen, headers and network names are checked too', () => {
    expect(
      problems(
        yaml(
          'listen: "::1:9715"',
          'networks:',
          '  "bad net": {}',
          ...NODE,
          '    network: x/y',
          '    headers:',
          '      "Bad Header": v',
          '      Host: h',
          '      X-Token: a',
          '      x-token: b',
        ),
      ),
    ).toEqual([
      'fleet.yaml:1:9: listen: put IPv6 addresses in brackets; expected host:port, e.g. 0.0.0.0:9715, ' +
        '127.0.0.1:9715 or [::1]:9715',
      'fleet.yaml:3:3: networks["bad net"]: network name must start with a letter or digit and contain only ' +
        'letters, digits, ".", "_" and "-"',
      'fleet.yaml:7:14: nodes[0].network: network name must start with a letter or digit and contain only ' +
        'letters, digits, ".", "_" and "-"',
      'fleet.yaml:9:7: nodes[0].headers["Bad Header"]: invalid header name "Bad Header"',
      'fleet.yaml:10:7: nodes[0].headers.Host: header "Host" is set by the HTTP client and cannot be configured',
      'fleet.yaml:12:7: nodes[0].headers["x-token"]: header "x-token" is set twice (names are case-insensitive)',
    ]);
  });

  it('reports all problems at once, in document order', () => {
    const err = configError(
      yaml(
        'listen: nowhere',
        'defaults:',
        '  probes: [health, gossip]',
        'nodes:',
        '  - name: a',
        '    url: ftp://h',
        '  - name: a',
        '    url: http://${H}',
        'evidence: {maxAgeDays: 0}',
      ),
    );
    expect(err.problems.map((p) => `${p.line}:${p.col} ${p.path}`)).toEqual([
      '1:9 listen',
      '3:20 defaults.probes[1]',
      '6:10 nodes[0].url',
      '7:11 nodes[1].name',
      '8:10 nodes[1].url',
      '9:24 evidence.maxAgeDays',
    ]);
    expect(err.problems.every((p) => p.file === FILE)).toBe(true);
    expect(err.message.split('\n')[0]).toBe('fleet.yaml: 6 configuration problems');
    expect(err.message.split('\n').slice(1)).toEqual(err.problems.map(formatProblem));
  });
});
