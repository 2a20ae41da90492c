// The `tls:` settings of defaults and nodes: problems at file:line:col, inheritance field by
// field, paths resolved against the config file, nodes of one origin agreeing.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { configProblems, yaml } from '../support/configProblems.js';

const FILE = '/etc/ledger/fleet.yaml';

const problems = (text: string) => configProblems(text, { file: FILE });

describe('tls settings', () => {
  it('inherits defaults field by field, resolves files against the config file, and leaves http nodes without', () => {
    const config = parseConfig(
      yaml(
        'defaults:',
        '  tls:',
        '    caFile: certs/ca.pem',
        'nodes:',
        '  - name: a',
        '    url: https://10.0.0.1:9710',
        '    tls:',
        '      certFile: /pki/monitor.pem',
        '      keyFile: certs/monitor.key',
        '      serverName: node-a.internal',
        '  - name: b',
        '    url: https://10.0.0.2:9710',
        '  - name: c',
        '    url: http://10.0.0.3:9710',
        '  - name: d',
        '    url: https://10.0.0.4:9710',
        '    tls: { insecureSkipVerify: true }',
      ),
      { file: FILE, env: {} },
    );
    expect(config.nodes.map((n) => n.tls)).toEqual([
      {
        caFile: '/etc/ledger/certs/ca.pem',
        certFile: '/pki/monitor.pem',
        keyFile: '/etc/ledger/certs/monitor.key',
        serverName: 'node-a.internal',
      },
      { caFile: '/etc/ledger/certs/ca.pem' },
      undefined,
      { caFile: '/etc/ledger/certs/ca.pem', insecureSkipVerify: true },
    ]);
  });

  it('reports certFile without keyFile, tls on an http node, typos and wrong types at their positions', () => {
    expect(
      problems(
        yaml(
          'defaults:',
          '  tls:',
          '    keyFile: k.pem',
          'nodes:',
          '  - name: a',
          '    url: http://10.0.0.1:9710',
          '    tls:',
          '      certFile: c.pem',
          '      keyFile: k.pem',
          '  - name: b',
          '    url: https://10.0.0.2:9710',
          '    tls:',
          '      ca_file: ca.pem',
          '      insecureSkipVerify: "yes"',
        ),
      ),
    ).toEqual([
      '/etc/ledger/fleet.yaml:3:14: defaults.tls.keyFile: keyFile needs certFile (mutual TLS takes both)',
      '/etc/ledger/fleet.yaml:7:5: nodes[0].tls: tls is set but the node url is http://, not https://',
      '/etc/ledger/fleet.yaml:13:7: nodes[1].tls.ca_file: unknown key "ca_file" (did you mean "caFile"?)',
      '/etc/ledger/fleet.yaml:14:27: nodes[1].tls.insecureSkipVerify: insecureSkipVerify must be true or false',
    ]);
  });

  it('requires nodes behind one origin to agree on tls (they share its connections)', () => {
    expect(
      problems(
        yaml(
          'nodes:',
          '  - name: a',
          '    url: https://gw.example:443/a',
          '    tls: { caFile: ca.pem }',
          '  - name: b',
          '    url: https://gw.example/b',
          '  - name: c',
          '    url: https://gw.example/c',
          '    tls: { caFile: ca.pem }',
        ),
      ),
    ).toEqual([
      '/etc/ledger/fleet.yaml:6:10: nodes[1].url: tls differs from nodes[0] at the same origin ' +
        'https://gw.example: nodes behind one origin share its connections and their TLS settings',
    ]);
  });
});
