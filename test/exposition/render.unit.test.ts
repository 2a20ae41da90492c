import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { MetricFamily } from '../../src/domain.js';
import {
  parseExposition,
  prepareUpstream,
  renderUpstream,
  renderUpstreamWithStats,
  type PreparedUpstream,
} from '../../src/exposition/index.js';

const fixture = (name: string): string =>
  readFileSync(fileURLToPath(new URL(`../fixtures/exposition/${name}`, import.meta.url)), 'utf8');

const prep = (node: string, text: string, network = 'mainnet'): PreparedUpstream =>
  prepareUpstream(node, network, parseExposition(text).families);

const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '');
const countOf = (text: string, line: string): number => lines(text).filter((l) => l === line).length;

describe('prepareUpstream + renderUpstream (text format)', () => {
  it('prefixes families, keeps sample suffixes and puts node and network first', () => {
    const text = renderUpstream([prep('val-eu-1', fixture('rust-prometheus.txt'))], { openMetrics: false });
    const out = lines(text);
    expect(out).toContain('# HELP ledger_upstream_block_time_seconds Time between consecutive blocks in seconds');
    expect(out).toContain('# TYPE ledger_upstream_block_time_seconds histogram');
    expect(out).toContain('ledger_upstream_block_time_seconds_bucket{node="val-eu-1",network="mainnet",le="0.5"} 0');
    expect(out).toContain(
      'ledger_upstream_block_time_seconds_sum{node="val-eu-1",network="mainnet"} 553712.9409999996',
    );
    expect(out).toContain('ledger_upstream_blocks_total{node="val-eu-1",network="mainnet"} 184467');
    expect(out.filter((l) => !l.startsWith('#')).every((l) => l.startsWith('ledger_upstream_'))).toBe(true);
  });

  it('writes one HELP/TYPE block per family however many nodes send it, series grouped per node', () => {
    const nodes = ['a', 'b', 'c'].map((n) => prep(n, fixture('rust-prometheus.txt')));
    const text = renderUpstream(nodes, { openMetrics: false });
    expect(countOf(text, '# TYPE ledger_upstream_blocks_total counter')).toBe(1);
    expect(countOf(text, '# HELP ledger_upstream_blocks_total Total number of blocks produced or imported')).toBe(1);
    const out = lines(text);
    const start = out.indexOf('# TYPE ledger_upstream_block_time_seconds histogram');
    const block = out.slice(start + 1, start + 1 + 33);
    // 11 histogram lines per node, node a's first, then b's, then c's; the next line is a new family.
    expect(block.map((l) => /node="(\w)"/.exec(l)?.[1])).toEqual([
      ...'a'.repeat(11),
      ...'b'.repeat(11),
      ...'c'.repeat(11),
    ]);
    expect(out[start + 34]).toMatch(/^# HELP ledger_upstream_blocks_total /);
  });

  it('orders families by name across nodes', () => {
    const text = renderUpstream([prep('n1', fixture('prom-client.txt')), prep('n2', fixture('rust-prometheus.txt'))], {
      openMetrics: false,
    });
    const types = lines(text)
      .filter((l) => l.startsWith('# TYPE '))
      .map((l) => l.split(' ')[2] ?? '');
    expect(types.length).toBe(11);
    expect(types).toEqual([...types].sort());
  });

  it('round-trips: parsing the output gives every upstream sample with node and network added', () => {
    const sources = [
      prep('val-eu-1', fixture('rust-prometheus.txt')),
      prep('exp-1', fixture('node-exporter.txt'), 'testnet'),
      prep('app "1"\\x', fixture('prom-client.txt'), 'multi\nline'),
    ];
    const reparsed = parseExposition(renderUpstream(sources, { openMetrics: false })).families;
    const inputs: Array<[string, string, MetricFamily[]]> = [
      ['val-eu-1', 'mainnet', parseExposition(fixture('rust-prometheus.txt')).families],
      ['exp-1', 'testnet', parseExposition(fixture('node-exporter.txt')).families],
      ['app "1"\\x', 'multi\nline', parseExposition(fixture('prom-client.txt')).families],
    ];
    let expectedSamples = 0;
    for (const [node, network, families] of inputs) {
      for (const f of families) {
        const out = reparsed.find((r) => r.name === `ledger_upstream_${f.name}`);
        expect(out?.type).toBe(f.type);
        expect(out?.help).toBe(f.help);
        for (const s of f.samples) {
          expectedSamples++;
          const match = out?.samples.find(
            (o) =>
              o.name === `ledger_upstream_${s.name}` &&
              o.labels.node === node &&
              o.labels.network === network &&
              JSON.stringify({ ...o.labels, node: undefined, network: undefined }) ===
                JSON.stringify({ node: undefined, network: undefined, ...s.labels }),
          );
          expect(match, `${node} ${s.name} ${JSON.stringify(s.labels)}`).toBeDefined();
          if (Number.isNaN(s.value)) expect(match?.value).toBeNaN();
          else expect(match?.value).toBe(s.value);
        }
      }
    }
    expect(reparsed.reduce((n, f) => n + f.samples.length, 0)).toBe(expectedSamples);
  });

  it('escapes node and network label values', () => {
    const text = renderUpstream([prep('we"ird\\node\nx', 'm 1\n', 'net"1')], { openMetrics: false });
    expect(lines(text)).toContain('ledger_upstream_m{node="we\\"ird\\\\node\\nx",network="net\\"1"} 1');
  });

  it('renames upstream labels named like ours one-to-one, so no two upstream series merge', () => {
    const text = renderUpstream([prep('me', 'm{node="other",zone="z",network="up"} 1\n')], { openMetrics: false });
    expect(lines(text)).toContain(
      'ledger_upstream_m{node="me",network="mainnet",exported_node="other",zone="z",exported_network="up"} 1',
    );
    // An upstream exported_* name gets one more prefix too: renaming never depends on the other labels.
    const twice = renderUpstream([prep('me', 'm{exported_node="e",node="n"} 1\n')], { openMetrics: false });
    expect(lines(twice)).toContain(
      'ledger_upstream_m{node="me",network="mainnet",exported_exported_node="e",exported_node="n"} 1',
    );
    // Prometheus's rule would expose both of these as m{exported_node="a"}: one series lost.
    const pair = renderUpstream([prep('me', 'm{node="a"} 1\nm{exported_node="a"} 2\n')], { openMetrics: false });
    expect(lines(pair).slice(1)).toEqual([
      'ledger_upstream_m{node="me",network="mainnet",exported_node="a"} 1',
      'ledger_upstream_m{node="me",network="mainnet",exported_exported_node="a"} 2',
    ]);
  });

  it('keeps the first TYPE seen and skips the other node family, reporting it', () => {
    const a = prep('a', '# TYPE x gauge\nx 1\n');
    const b = prep('b', '# TYPE x counter\nx 2\n# TYPE y gauge\ny 3\n');
    const first = renderUpstreamWithStats([a, b], { openMetrics: false });
    expect(lines(first.text)).toEqual([
      '# TYPE ledger_upstream_x gauge',
      'ledger_upstream_x{node="a",network="mainnet"} 1',
      '# TYPE ledger_upstream_y gauge',
      'ledger_upstream_y{node="b",network="mainnet"} 3',
    ]);
    expect(first.conflicts).toEqual([
      {
        family: 'ledger_upstream_x',
        node: 'b',
        reason: 'type_mismatch',
        type: 'counter',
        keptType: 'gauge',
        samples: 1,
      },
    ]);
    const reversed = renderUpstreamWithStats([b, a], { openMetrics: false });
    expect(lines(reversed.text)).toContain('# TYPE ledger_upstream_x counter');
    expect(lines(reversed.text)).not.toContain('ledger_upstream_x{node="a",network="mainnet"} 1');
    expect(reversed.conflicts).toEqual([
      {
        family: 'ledger_upstream_x',
        node: 'a',
        reason: 'type_mismatch',
        type: 'gauge',
        keptType: 'counter',
        samples: 1,
      },
    ]);
    expect(renderUpstream([a, b], { openMetrics: false })).toBe(first.text);
  });

  it('takes HELP from the first node that has one, escaped', () => {
    const noHelp = prep('a', '# TYPE x gauge\nx 1\n');
    const withHelp = prep('b', '# HELP x Line one\\nback\\\\slash "quoted"\n# TYPE x gauge\nx 2\n');
    const other = prep('c', '# HELP x Another help\n# TYPE x gauge\nx 3\n');
    const text = renderUpstream([noHelp, withHelp, other], { openMetrics: false });
    expect(lines(text)[0]).toBe('# HELP ledger_upstream_x Line one\\nback\\\\slash "quoted"');
    expect(lines(text).filter((l) => l.startsWith('# HELP'))).toHaveLength(1);
    expect(lines(text).slice(2)).toEqual([
      'ledger_upstream_x{node="a",network="mainnet"} 1',
      'ledger_upstream_x{node="b",network="mainnet"} 2',
      'ledger_upstream_x{node="c",network="mainnet"} 3',
    ]);
  });

  it('keeps each histogram series together in bucket order even when upstream interleaves them', () => {
    const text = [
      '# TYPE h histogram',
      'h_bucket{m="a",le="+Inf"} 3',
      'h_bucket{m="b",le="1"} 1',
      'h_count{m="a"} 3',
      'h_bucket{m="a",le="10"} 2',
      'h_sum{m="b"} 0.5',
      'h_bucket{m="a",le="2.5"} 1',
      'h_sum{m="a"} 9',
      'h_bucket{m="b",le="+Inf"} 1',
      'h_count{m="b"} 1',
    ].join('\n');
    const out = lines(renderUpstream([prep('n', text)], { openMetrics: false })).slice(1);
    expect(out.map((l) => l.replace('{node="n",network="mainnet",', '{'))).toEqual([
      'ledger_upstream_h_bucket{m="a",le="2.5"} 1',
      'ledger_upstream_h_bucket{m="a",le="10"} 2',
      'ledger_upstream_h_bucket{m="a",le="+Inf"} 3',
      'ledger_upstream_h_sum{m="a"} 9',
      'ledger_upstream_h_count{m="a"} 3',
      'ledger_upstream_h_bucket{m="b",le="1"} 1',
      'ledger_upstream_h_bucket{m="b",le="+Inf"} 1',
      'ledger_upstream_h_sum{m="b"} 0.5',
      'ledger_upstream_h_count{m="b"} 1',
    ]);
  });

  it('drops upstream timestamps and writes special values in exposition form', () => {
    const text = renderUpstream([prep('n', 'a 1 1700000000000\nb NaN 5\nc +Inf\nd -Inf\ne 1e21\n')], {
      openMetrics: false,
    });
    expect(lines(text).filter((l) => !l.startsWith('#'))).toEqual([
      'ledger_upstream_a{node="n",network="mainnet"} 1',
      'ledger_upstream_b{node="n",network="mainnet"} NaN',
      'ledger_upstream_c{node="n",network="mainnet"} +Inf',
      'ledger_upstream_d{node="n",network="mainnet"} -Inf',
      'ledger_upstream_e{node="n",network="mainnet"} 1e+21',
    ]);
    expect(lines(text)).toContain('# TYPE ledger_upstream_a untyped');
  });

  it('leaves out families without samples and honours a custom prefix', () => {
    const p = prepareUpstream('n', 'net', parseExposition('# HELP quiet q\n# TYPE quiet gauge\nloud 1\n').families, {
      prefix: 'up_',
    });
    expect(p.families.map((f) => f.name)).toEqual(['up_loud']);
    expect(lines(renderUpstream([p], { openMetrics: false }))).toEqual([
      '# TYPE up_loud untyped',
      'up_loud{node="n",network="net"} 1',
    ]);
    expect(() => prepareUpstream('n', 'net', [], { prefix: '1bad' })).toThrow(TypeError);
  });

  it('renders nothing for no sources, and accepts any iterable such as a Map of nodes', () => {
    expect(renderUpstream([], { openMetrics: false })).toBe('');
    const byNode = new Map([['a', prep('a', 'x 1\n')]]);
    expect(renderUpstream(byNode.values(), { openMetrics: true })).toBe(
      '# TYPE ledger_upstream_x unknown\nledger_upstream_x{node="a",network="mainnet"} 1\n',
    );
  });

  it('renders a large fleet with every series exactly once', () => {
    const families = parseExposition(fixture('rust-prometheus.txt')).families;
    const sources = Array.from({ length: 1000 }, (_, i) => prepareUpstream(`node-${i}`, 'mainnet', families));
    const text = renderUpstream(sources, { openMetrics: false });
    const out = lines(text);
    expect(out.filter((l) => l.startsWith('# TYPE'))).toHaveLength(6);
    expect(out.filter((l) => !l.startsWith('#'))).toHaveLength(1000 * 16);
    expect(new Set(out).size).toBe(out.length);
  });
});

describe('renderUpstream in OpenMetrics mode', () => {
  const render = (sources: PreparedUpstream[]): string[] => lines(renderUpstream(sources, { openMetrics: true }));

  it('declares counters without _total while samples keep it', () => {
    const out = render([prep('n', fixture('rust-prometheus.txt'))]);
    expect(out).toContain('# HELP ledger_upstream_blocks Total number of blocks produced or imported');
    expect(out).toContain('# TYPE ledger_upstream_blocks counter');
    expect(out).toContain('ledger_upstream_blocks_total{node="n",network="mainnet"} 184467');
    expect(out.some((l) => l.startsWith('# TYPE ledger_upstream_blocks_total'))).toBe(false);
    // The text format keeps the full name on TYPE.
    expect(lines(renderUpstream([prep('n', fixture('rust-prometheus.txt'))], { openMetrics: false }))).toContain(
      '# TYPE ledger_upstream_blocks_total counter',
    );
  });

  it('exposes untyped as unknown and a counter lacking _total as unknown', () => {
    const out = render([prep('n', '# TYPE hits counter\nhits 4\nraw 2\n')]);
    expect(out).toEqual([
      '# TYPE ledger_upstream_hits unknown',
      'ledger_upstream_hits{node="n",network="mainnet"} 4',
      '# TYPE ledger_upstream_raw unknown',
      'ledger_upstream_raw{node="n",network="mainnet"} 2',
    ]);
  });

  it('escapes double quotes in HELP, which the text format leaves as they are', () => {
    const p = prep('n', '# HELP g Say "hi"\\nnow\n# TYPE g gauge\ng 1\n');
    expect(render([p])[0]).toBe('# HELP ledger_upstream_g Say \\"hi\\"\\nnow');
    expect(lines(renderUpstream([p], { openMetrics: false }))[0]).toBe('# HELP ledger_upstream_g Say "hi"\\nnow');
  });

  it('writes no # EOF and no timestamps', () => {
    const text = renderUpstream([prep('n', 'a 1 1700000000000\n')], { openMetrics: true });
    expect(text).toBe('# TYPE ledger_upstream_a unknown\nledger_upstream_a{node="n",network="mainnet"} 1\n');
  });

  it('skips a family whose OpenMetrics name would repeat another family and reports it', () => {
    const a = prep('a', '# TYPE jobs gauge\njobs 1\n');
    const b = prep('b', '# TYPE jobs_total counter\njobs_total 5\n');
    const om = renderUpstreamWithStats([a, b], { openMetrics: true });
    expect(lines(om.text)).toEqual([
      '# TYPE ledger_upstream_jobs gauge',
      'ledger_upstream_jobs{node="a",network="mainnet"} 1',
    ]);
    expect(om.conflicts).toEqual([
      {
        family: 'ledger_upstream_jobs_total',
        node: 'b',
        reason: 'name_collision',
        type: 'counter',
        keptType: 'gauge',
        samples: 1,
      },
    ]);
    // Left out of the text format too: both formats expose the same series.
    const text = renderUpstreamWithStats([a, b], { openMetrics: false });
    expect(text.conflicts).toEqual(om.conflicts);
    expect(lines(text.text)).toEqual([
      '# TYPE ledger_upstream_jobs gauge',
      'ledger_upstream_jobs{node="a",network="mainnet"} 1',
    ]);
  });
});
