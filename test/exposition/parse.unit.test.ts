import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { MetricFamily } from '../../src/domain.js';
import { ExpositionError, parseExposition } from '../../src/exposition/index.js';

const fixture = (name: string): string =>
  readFileSync(fileURLToPath(new URL(`../fixtures/exposition/${name}`, import.meta.url)), 'utf8');

const family = (families: MetricFamily[], name: string): MetricFamily => {
  const f = families.find((x) => x.name === name);
  if (!f) throw new Error(`no family ${name}`);
  return f;
};

/** Runs the parser and returns the ExpositionError it must throw. */
function parseError(text: string): ExpositionError {
  try {
    parseExposition(text);
  } catch (e) {
    if (e instanceof ExpositionError) return e;
    throw e;
  }
  throw new Error('expected an ExpositionError');
}

describe('parseExposition on real outputs', () => {
  it('reads the Rust prometheus crate output of a ledger node', () => {
    const { families, droppedSamples } = parseExposition(fixture('rust-prometheus.txt'));
    expect(droppedSamples).toBe(0);
    expect(families.map((f) => f.name)).toEqual([
      'block_height',
      'block_time_seconds',
      'blocks_total',
      'mempool_size',
      'peers_connected',
      'transactions_total',
    ]);
    expect(family(families, 'blocks_total')).toEqual({
      name: 'blocks_total',
      help: 'Total number of blocks produced or imported',
      type: 'counter',
      samples: [{ name: 'blocks_total', labels: {}, value: 184467 }],
    });
    const hist = family(families, 'block_time_seconds');
    expect(hist.type).toBe('histogram');
    expect(hist.samples).toHaveLength(11);
    const buckets = hist.samples.filter((s) => s.name === 'block_time_seconds_bucket');
    expect(buckets.map((s) => s.labels.le)).toEqual(['0.5', '1', '2', '3', '5', '10', '30', '60', '+Inf']);
    expect(hist.samples.find((s) => s.name === 'block_time_seconds_sum')?.value).toBe(553712.9409999996);
    expect(hist.samples.find((s) => s.name === 'block_time_seconds_count')?.value).toBe(184466);
    expect(family(families, 'peers_connected').samples[0]?.value).toBe(8);
  });

  it('reads a node_exporter excerpt: summary quantiles, exponent values, empty label values', () => {
    const { families } = parseExposition(fixture('node-exporter.txt'));
    const gc = family(families, 'go_gc_duration_seconds');
    expect(gc.type).toBe('summary');
    expect(gc.help).toBe('A summary of the pause duration of garbage collection cycles.');
    expect(gc.samples.map((s) => s.labels.quantile ?? s.name)).toEqual([
      '0',
      '0.25',
      '0.5',
      '0.75',
      '1',
      'go_gc_duration_seconds_sum',
      'go_gc_duration_seconds_count',
    ]);
    expect(gc.samples[0]?.value).toBe(2.4522e-5);
    expect(family(families, 'node_boot_time_seconds').samples[0]?.value).toBe(1700481367);
    const cpu = family(families, 'node_cpu_seconds_total');
    expect(cpu.samples).toHaveLength(8);
    expect(cpu.samples[0]).toEqual({
      name: 'node_cpu_seconds_total',
      labels: { cpu: '0', mode: 'idle' },
      value: 1218765.44,
    });
    const info = family(families, 'node_network_info').samples[0];
    expect(info?.labels.duplex).toBe('');
    expect(info?.labels.address).toBe('52:54:00:12:34:56');
    expect(family(families, 'node_network_info').help).toBe(
      'Non-numeric data from /sys/class/net/<iface>, value is always 1.',
    );
  });

  it('reads prom-client output with escapes, Nan, +Inf and -Inf', () => {
    const { families } = parseExposition(fixture('prom-client.txt'));
    const req = family(families, 'http_requests_total');
    expect(req.help).toBe('Requests served, by path.\nPaths with a backslash (\\) are Windows shares');
    expect(req.samples.map((s) => s.labels.path)).toEqual(['/api/"quoted"', 'C:\\share\\dir', 'multi\nline']);
    expect(family(families, 'queue_depth').samples[0]?.value).toBe(-Infinity);
    const ratio = family(families, 'ratio').samples;
    expect(ratio[0]?.value).toBeNaN();
    expect(ratio[1]?.value).toBe(1.5e-7);
    expect(ratio[2]?.value).toBe(Infinity);
    const rpc = family(families, 'rpc_duration_seconds');
    expect(rpc.type).toBe('histogram');
    expect(rpc.samples).toHaveLength(14);
    expect(family(families, 'payload_bytes').samples).toHaveLength(5);
  });
});

describe('parseExposition syntax', () => {
  it('accepts comments, blank lines, CRLF, blanks inside label sets, a trailing comma and # EOF', () => {
    const text = [
      '# just a comment',
      '',
      '#  HELP  spaced_metric  Help with \\\\ backslash, \\n newline and \\t kept',
      '# TYPE spaced_metric gauge',
      '  spaced_metric { a = "1" , b="2", } 3\r',
      'spaced_metric{c="x",} 4',
      '\t',
      '# EOF',
      '',
    ].join('\n');
    const { families } = parseExposition(text);
    expect(families).toEqual([
      {
        name: 'spaced_metric',
        help: 'Help with \\ backslash, \n newline and \\t kept',
        type: 'gauge',
        samples: [
          { name: 'spaced_metric', labels: { a: '1', b: '2' }, value: 3 },
          { name: 'spaced_metric', labels: { c: 'x' }, value: 4 },
        ],
      },
    ]);
  });

  it('reads value forms and optional millisecond timestamps', () => {
    const text = [
      'v1 1.5e3',
      'v2 -2E-2 1700000000123',
      'v3 .5',
      'v4 NaN',
      'v5 +Inf',
      'v6 -Inf -5',
      'v7 +7',
      'v8{} 0',
      'colon:name_ok 1',
    ].join('\n');
    const samples = parseExposition(text).families.map((f) => f.samples[0]);
    expect(samples.map((s) => s?.value)).toEqual([1500, -0.02, 0.5, NaN, Infinity, -Infinity, 7, 0, 1]);
    expect(samples[1]?.timestampMs).toBe(1700000000123);
    expect(samples[5]?.timestampMs).toBe(-5);
    expect(samples[0]).not.toHaveProperty('timestampMs');
  });

  it('treats samples without TYPE as untyped, each name its own family', () => {
    const { families } = parseExposition('foo_bucket{le="1"} 1\nfoo_sum 2\nbar 3\n');
    expect(families.map((f) => [f.name, f.type])).toEqual([
      ['foo_bucket', 'untyped'],
      ['foo_sum', 'untyped'],
      ['bar', 'untyped'],
    ]);
  });

  it('groups histogram and summary series under their family even when interleaved with others', () => {
    const text = [
      '# TYPE h histogram',
      '# TYPE s summary',
      'h_bucket{le="1"} 1',
      's{quantile="0.5"} 2',
      'h_bucket{le="+Inf"} 3',
      'other 9',
      's_sum 4',
      'h_sum 5',
      's_count 6',
      'h_count 3',
    ].join('\n');
    const { families } = parseExposition(text);
    expect(families.map((f) => f.name)).toEqual(['h', 's', 'other']);
    expect(family(families, 'h').samples.map((x) => x.name)).toEqual(['h_bucket', 'h_bucket', 'h_sum', 'h_count']);
    expect(family(families, 's').samples.map((x) => x.name)).toEqual(['s', 's_sum', 's_count']);
  });

  it('tolerates the same TYPE twice and a HELP after samples, keeping the first HELP', () => {
    const text = '# HELP a first\n# TYPE a gauge\na 1\n# TYPE a gauge\n# HELP a second\n';
    const { families } = parseExposition(text);
    expect(families).toEqual([
      { name: 'a', help: 'first', type: 'gauge', samples: [{ name: 'a', labels: {}, value: 1 }] },
    ]);
  });

  it('keeps a family declared without samples and an empty HELP', () => {
    const { families } = parseExposition('# HELP empty\n# HELP quiet \n# TYPE quiet counter\n');
    // `# HELP empty` has a name and no text; `# HELP` alone would be a comment.
    expect(families).toEqual([
      { name: 'empty', help: '', type: 'untyped', samples: [] },
      { name: 'quiet', help: '', type: 'counter', samples: [] },
    ]);
    expect(parseExposition('# HELP\n# TYPE\n').families).toEqual([]);
  });

  it('stores a __proto__ label as an ordinary label without touching prototypes', () => {
    const { families } = parseExposition('m{__proto__="x",a="y"} 1\n');
    const labels = families[0]?.samples[0]?.labels ?? {};
    expect(Object.keys(labels)).toEqual(['__proto__', 'a']);
    expect(Object.getOwnPropertyDescriptor(labels, '__proto__')?.value).toBe('x');
    expect(Object.getPrototypeOf(labels)).toBe(Object.prototype);
  });

  it('returns no families for an empty body', () => {
    expect(parseExposition('')).toEqual({ families: [], droppedSamples: 0, truncated: false });
  });
});

describe('parseExposition rejects malformed input with the line number', () => {
  const ok = '# HELP good A good metric\n# TYPE good gauge\ngood 1\n';
  const cases: Array<[string, string, RegExp]> = [
    ['bad metric name', '9bad 1', /invalid metric name/],
    ['dash in metric name', 'foo-bar 1', /invalid metric name/],
    ['bad label name', 'm{1a="x"} 1', /invalid label name/],
    ['leading comma in label set', 'm{,a="x"} 1', /invalid label name/],
    ['double comma', 'm{a="x",,b="y"} 1', /invalid label name/],
    ['unquoted label value', 'm{a=x} 1', /not quoted/],
    ['missing =', 'm{a "x"} 1', /expected '='/],
    ['unterminated label value', 'm{a="x} 1', /unterminated label value/],
    ['label value ending in a backslash', 'm{a="x\\', /unterminated label value/],
    ['unterminated label set', 'm{a="x" 1', /expected ',' or '}'/],
    ['label set cut at the end of the line', 'm{a="x",', /unterminated label set/],
    ['invalid escape in label value', 'm{a="\\t"} 1', /invalid escape/],
    ['duplicate label name', 'm{a="1",a="2"} 1', /duplicate label name a/],
    ['reserved __name__ label', 'm{__name__="x"} 1', /reserved/],
    ['missing value', 'm', /missing value/],
    ['missing value after labels', 'm{a="1"}', /missing value/],
    ['bad value', 'm abc', /invalid value/],
    ['hex value', 'm 0x10', /invalid value/],
    ['value with unit', 'm 12ms', /invalid value/],
    ['fractional timestamp', 'm 1 1.5', /invalid timestamp/],
    ['text after timestamp', 'm 1 2 3', /unexpected text/],
    ['bad name in TYPE', '# TYPE 1x gauge', /invalid metric name in TYPE/],
    ['bad name in HELP', '# HELP a-b help', /invalid metric name in HELP/],
    ['unknown TYPE', '# TYPE m gauges', /unknown metric type/],
    ['TYPE without type', '# TYPE m', /unknown metric type/],
    ['different TYPE twice', '# TYPE good counter', /declared twice with different TYPE \(gauge, then counter\)/],
    ['TYPE after samples', 'late 1\n# TYPE late gauge', /TYPE line for late after its samples/],
    ['histogram TYPE after its bucket samples', 'hh_bucket{le="1"} 1\n# TYPE hh histogram', /after its samples/],
    ['duplicate series', 'good 2', /duplicate series for good/],
    ['duplicate series with labels in another order', 'd{a="1",b="2"} 1\nd{b="2",a="1"} 2', /duplicate series/],
    ['histogram bucket without le', '# TYPE h histogram\nh_bucket 1', /lacks the le label/],
    ['histogram bucket with a non-numeric le', '# TYPE h histogram\nh_bucket{le="big"} 1', /non-numeric le/],
    ['histogram sample without suffix', '# TYPE h histogram\nh 1', /needs a _bucket, _sum or _count suffix/],
    ['summary sample without quantile', '# TYPE s summary\ns 1', /lacks the quantile label/],
    ['content after # EOF', '# EOF\nm 1', /content after # EOF/],
  ];

  for (const [title, bad, message] of cases) {
    it(title, () => {
      const badLines = bad.split('\n').length;
      const err = parseError(`${ok}${bad}\n`);
      expect(err).toBeInstanceOf(Error);
      expect(err.name).toBe('ExpositionError');
      // The failing line is the last line of `bad`, after the 3 good lines.
      expect(err.line).toBe(3 + badLines);
      expect(err.message).toMatch(message);
      expect(err.message.startsWith(`line ${err.line}: `)).toBe(true);
    });
  }

  it('rejects an HTML error page from a reverse proxy on its first line', () => {
    const html =
      '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n' +
      '<center><h1>502 Bad Gateway</h1></center>\r\n</body>\r\n</html>\r\n';
    expect(parseError(html).line).toBe(1);
  });

  it('rejects a JSON body', () => {
    expect(parseError('{"status":"ok","height":12}').line).toBe(1);
    expect(parseError('\n\n[1,2]').line).toBe(3);
  });

  it('rejects plain-text error bodies instead of reading them as series', () => {
    expect(parseError('Not Found').message).toMatch(/invalid value for Not/);
    expect(parseError('Unauthorized').message).toMatch(/missing value/);
  });

  it('rejects garbage that starts like a valid exposition, without returning half of it', () => {
    const text = `${fixture('rust-prometheus.txt')}<!DOCTYPE html>\n`;
    const lines = text.split('\n').length - 1;
    expect(parseError(text).line).toBe(lines);
  });

  it('does not echo the offending text in the message', () => {
    const err = parseError('m{token="s3cr3t-value} 1');
    expect(err.message).not.toContain('s3cr3t');
  });
});

describe('series cap', () => {
  it('keeps the first samples up to the cap and counts the dropped ones', () => {
    const text = Array.from({ length: 10 }, (_, i) => `m{i="${i}"} ${i}`).join('\n');
    const { families, droppedSamples } = parseExposition(text, { maxSeries: 4 });
    expect(droppedSamples).toBe(6);
    expect(families[0]?.samples.map((s) => s.labels.i)).toEqual(['0', '1', '2', '3']);
  });

  it('drops whole histogram series, never part of one, and removes families emptied by the cap', () => {
    // 11 samples in the histogram, 1 in block_height before it.
    const text = fixture('rust-prometheus.txt');
    const total = parseExposition(text).families.reduce((n, f) => n + f.samples.length, 0);
    const capped = parseExposition(text, { maxSeries: 5 });
    expect(capped.families.map((f) => f.name)).toEqual(['block_height']);
    expect(capped.droppedSamples).toBe(total - 1);

    const roomy = parseExposition(text, { maxSeries: 12 });
    expect(roomy.families.map((f) => f.name)).toEqual(['block_height', 'block_time_seconds']);
    expect(roomy.families[1]?.samples).toHaveLength(11);
    expect(roomy.droppedSamples).toBe(total - 12);
  });

  it('keeps a predictable prefix: nothing after the first series that did not fit', () => {
    const text = '# TYPE h histogram\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\nsmall 1\n';
    const { families, droppedSamples } = parseExposition(text, { maxSeries: 2 });
    expect(families).toEqual([]);
    expect(droppedSamples).toBe(4);
  });

  it('drops nothing when the input fits', () => {
    const { families, droppedSamples } = parseExposition(fixture('node-exporter.txt'), { maxSeries: 1000 });
    expect(droppedSamples).toBe(0);
    expect(families).toEqual(parseExposition(fixture('node-exporter.txt')).families);
  });

  it('stops reading at the cap: lines after it are counted, not parsed', () => {
    expect(() => parseExposition('a 1\nb 2\nc{ 3\n')).toThrow(ExpositionError);
    const capped = parseExposition('a 1\nb 2\nc{ 3\n# HELP x y\n', { maxSeries: 1 });
    expect(capped).toEqual({
      families: [{ name: 'a', type: 'untyped', samples: [{ name: 'a', labels: {}, value: 1 }] }],
      droppedSamples: 2,
      truncated: true,
    });
  });
});

describe('per-node budget', () => {
  it('stops at maxBytes: long label values fill the budget long before the series cap', () => {
    const big = 'v'.repeat(10_000);
    const text = Array.from({ length: 100 }, (_, i) => `m{i="${i}",blob="${big}"} 1`).join('\n');
    const { families, droppedSamples, truncated } = parseExposition(text, {
      budget: { maxSeries: 2000, maxBytes: 64 * 1024 },
    });
    const kept = families[0]?.samples.length ?? 0;
    expect(truncated).toBe(true);
    expect(kept).toBe(6); // 6 x ~10.1 KB fit in 64 KiB, a seventh does not
    expect(kept + droppedSamples).toBe(100);
  });

  it('caps families, also those with only HELP and TYPE lines', () => {
    const text =
      Array.from({ length: 5000 }, (_, i) => `# HELP f${i} help\n# TYPE f${i} gauge`).join('\n') + '\nlast 1\n';
    const r = parseExposition(text, { budget: { maxFamilies: 100 } });
    expect(r.truncated).toBe(true);
    expect(r.families).toEqual([]);
    expect(r.droppedSamples).toBe(1);
  });

  it('cuts HELP text at maxHelpChars and counts it against the budget', () => {
    const text = `# HELP h ${'x'.repeat(1_000_000)}\n# TYPE h gauge\nh 1\n`;
    const r = parseExposition(text, { budget: { maxHelpChars: 1024 } });
    expect(r.families[0]?.help).toHaveLength(1024);
    expect(r.truncated).toBe(false);
    const tight = parseExposition(text, { budget: { maxHelpChars: 1024, maxBytes: 1000 } });
    expect(tight).toEqual({ families: [], droppedSamples: 1, truncated: true });
  });
});
