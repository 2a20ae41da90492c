// The watch: section: defaults, resolution, and every bad entry reported at file:line:col.
import { describe, expect, it } from 'vitest';
import { ConfigError, formatProblem, parseConfig } from '../../src/config/index.js';

const FILE = 'fleet.yaml';
const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const NODES = [
  'nodes:',
  '  - name: n1',
  '    url: http://10.0.0.1:9710',
  '    network: mainnet',
  '  - name: n2',
  '    url: http://10.0.0.2:9710',
];
const yaml = (...lines: string[]) => `${[...NODES, ...lines].join('\n')}\n`;

function problems(text: string): string[] {
  try {
    parseConfig(text, { file: FILE, env: {} });
  } catch (e) {
    if (e instanceof ConfigError) return e.problems.map(formatProblem);
    throw e;
  }
  throw new Error('expected a ConfigError');
}

describe('watch: config', () => {
  it('resolves entries of every kind with their defaults, and epochBlocks per network', () => {
    const config = parseConfig(
      yaml(
        'networks:',
        '  mainnet: {decimals: 9, epochBlocks: 50}',
        'watch:',
        '  validators:',
        `    - {name: val, address: ${A}, network: mainnet, seatMarginBelow: 12.5%, commissionBps: 500}`,
        '  miners:',
        `    - {name: rig, address: ${B}}`,
        '  accounts:',
        `    - {name: hot, address: ${A}, network: mainnet, minBalance: 25}`,
      ),
      { file: FILE, env: {} },
    );
    expect(config.watch).toEqual({
      intervalMs: 30_000,
      entries: [
        { kind: 'validator', name: 'val', address: A, network: 'mainnet', seatMarginBelow: 0.125, commissionBps: 500 },
        { kind: 'miner', name: 'rig', address: B, network: 'default' },
        { kind: 'account', name: 'hot', address: A, network: 'mainnet', minBalance: 25 },
      ],
    });
    expect(config.networks.mainnet).toEqual({ decimals: 9, epochBlocks: 50 });
    expect(config.networks.default).toEqual({ decimals: 9, epochBlocks: 100 });
  });

  it('no watch: section, no watch', () => {
    expect(parseConfig(yaml(), { file: FILE, env: {} }).watch).toBeUndefined();
  });

  it('reports a bad address, a 0x prefix and upper case at the address', () => {
    const lines = [
      `    - {name: v1, address: "0x${A}", network: mainnet}`,
      '    - {name: v2, address: abc, network: mainnet}',
      `    - {name: v3, address: ${A.toUpperCase()}, network: mainnet}`,
      `    - {name: v4, address: 0x${A.slice(2)}, network: mainnet}`,
    ];
    // Column 27 is where each address value starts; YAML reads a bare 0x... as a number.
    expect(problems(yaml('watch:', '  validators:', ...lines))).toEqual([
      'fleet.yaml:9:27: watch.validators[0].address: address must not start with 0x: write the 64 hex characters alone',
      'fleet.yaml:10:27: watch.validators[1].address: address must be 64 lowercase hex characters (got 3 characters)',
      'fleet.yaml:11:27: watch.validators[2].address: address must be lowercase hex',
      'fleet.yaml:12:27: watch.validators[3].address: address must be a string of 64 lowercase hex characters, ' +
        'no 0x prefix',
    ]);
  });

  it('reports a name used twice across watch:, at the later one', () => {
    expect(
      problems(
        yaml(
          'watch:',
          '  miners:',
          `    - {name: same, address: ${A}, network: mainnet}`,
          '  accounts:',
          `    - {name: same, address: ${B}, network: mainnet}`,
        ),
      ),
    ).toEqual([
      'fleet.yaml:11:14: watch.accounts[0].name: duplicate watch name "same" (already used by watch.miners[0])',
    ]);
  });

  it('reports a network no node belongs to', () => {
    const line = `    - {name: hot, address: ${A}, network: testnet}`;
    expect(problems(yaml('watch:', '  accounts:', line))).toEqual([
      `fleet.yaml:9:${line.indexOf('testnet') + 1}: watch.accounts[0].network: no node belongs to network ` +
        `"testnet" (nodes are in: default, mainnet)`,
    ]);
  });

  it('reports a bad seatMarginBelow, commissionBps and minBalance', () => {
    const out = problems(
      yaml(
        'watch:',
        '  validators:',
        `    - {name: v, address: ${A}, network: mainnet, seatMarginBelow: 0.1, commissionBps: 20000}`,
        '  accounts:',
        `    - {name: a, address: ${B}, network: mainnet, minBalance: -1}`,
        `    - {name: b, address: ${B}, network: mainnet, minBalance: lots}`,
      ),
    );
    expect(out).toHaveLength(4);
    expect(out[0]).toMatch(/^fleet\.yaml:9:\d+: watch\.validators\[0\]\.seatMarginBelow: /);
    expect(out[0]).toMatch(/seatMarginBelow must be a percentage such as 10%/);
    expect(
      problems(
        yaml('watch:', '  validators:', `    - {name: v, address: ${A}, network: mainnet, seatMarginBelow: 150%}`),
      )[0],
    ).toMatch(/percentage above 0% and below 100%, e\.g\. 10%/);
    expect(out.join('\n')).toMatch(/^fleet\.yaml:9:\d+: watch\.validators\[0\]\.commissionBps: /m);
    expect(out.join('\n')).toMatch(/^fleet\.yaml:11:\d+: watch\.accounts\[0\]\.minBalance: /m);
    expect(out.join('\n')).toMatch(
      /^fleet\.yaml:12:\d+: watch\.accounts\[1\]\.minBalance: minBalance must be a number of tokens/m,
    );
  });
});
