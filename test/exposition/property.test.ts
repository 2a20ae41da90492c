// Property test: random and mutated expositions from several nodes, merged as /metrics merges
// them, must always give output that parses (our strict parser, promtool, and an OpenMetrics
// family/sample check) with one HELP/TYPE block per name and no duplicate series (issue 15).
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_UPSTREAM_BUDGET,
  parseExposition,
  prepareUpstream,
  renderUpstream,
  type PreparedUpstream,
} from '../../src/exposition/index.js';
import { labelKey } from '../../src/exposition/series.js';
import { checkTools, requireTool } from '../support/prometheus-tools.js';

const SECRET = 'tok-s3cret-value';
// Few names, chosen to collide: families against each other's _total/_count/_sum/_bucket/_created.
const NAMES = [
  'a',
  'a_total',
  'a_count',
  'a_sum',
  'a_bucket',
  'a_created',
  'h',
  'h_count',
  'h_sum',
  'h_bucket',
  'x_info',
  'x',
];
const TYPES = ['counter', 'gauge', 'histogram', 'summary', 'untyped'] as const;
const LABELS = ['node', 'network', 'exported_node', 'exported_exported_node', 'path', 'le', 'quantile'];
const VALUES = ['a', 'b', '', 'x"y', 'back\\slash', 'new\nline', SECRET, `Bearer ${SECRET}`];

const labelSet = fc.dictionary(
  fc.constantFrom(...LABELS.filter((l) => l !== 'le' && l !== 'quantile')),
  fc.constantFrom(...VALUES),
  { maxKeys: 3 },
);
const family = fc.record({
  name: fc.constantFrom(...NAMES),
  type: fc.constantFrom(...TYPES),
  help: fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
  series: fc.array(labelSet, { minLength: 1, maxLength: 3 }),
  value: fc.oneof(fc.double(), fc.constantFrom(0, 1, -1)),
});
type Family = typeof family extends fc.Arbitrary<infer T> ? T : never;

const esc = (v: string) => v.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));
const fmt = (v: number) => (Number.isNaN(v) ? 'NaN' : v === Infinity ? '+Inf' : v === -Infinity ? '-Inf' : String(v));
const sample = (name: string, labels: Record<string, string>, v: number) =>
  `${name}{${Object.entries(labels)
    .map(([k, x]) => `${k}="${esc(x)}"`)
    .join(',')}} ${fmt(v)}`;

/** A family in the text format, as a well-behaved client library would write it. */
function familyText(f: Family): string[] {
  const out = [
    ...(f.help !== undefined
      ? [`# HELP ${f.name} ${f.help.replace(/[\\\n]/g, (c) => (c === '\n' ? '\\n' : '\\\\'))}`]
      : []),
    `# TYPE ${f.name} ${f.type}`,
  ];
  for (const labels of f.series) {
    if (f.type === 'histogram') {
      out.push(
        sample(`${f.name}_bucket`, { ...labels, le: '1' }, 1),
        sample(`${f.name}_bucket`, { ...labels, le: '+Inf' }, 2),
      );
      out.push(sample(`${f.name}_sum`, labels, f.value), sample(`${f.name}_count`, labels, 2));
    } else if (f.type === 'summary') {
      out.push(
        sample(f.name, { ...labels, quantile: '0.5' }, f.value),
        sample(`${f.name}_sum`, labels, f.value),
        sample(`${f.name}_count`, labels, 1),
      );
    } else out.push(sample(f.name, labels, f.value));
  }
  return out;
}

/** Line-level mutations a broken build or a proxy could produce. */
const mutation = fc.oneof(
  fc.record({ kind: fc.constant('drop' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('swap' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('garble' as const), at: fc.nat(), text: fc.string({ maxLength: 6 }) }),
);

function mutate(lines: string[], ms: Array<{ kind: string; at: number; text?: string }>): string {
  const out = [...lines];
  for (const m of ms) {
    if (out.length === 0) break;
    const i = m.at % out.length;
    if (m.kind === 'drop') out.splice(i, 1);
    else if (m.kind === 'duplicate') out.splice(i, 0, out[i]!);
    else if (m.kind === 'swap' && i + 1 < out.length) [out[i], out[i + 1]] = [out[i + 1]!, out[i]!];
    else if (m.kind === 'garble')
      out[i] =
        out[i]!.slice(0, m.at % (out[i]!.length + 1)) + (m.text ?? '') + out[i]!.slice(m.at % (out[i]!.length + 1));
  }
  return out.join('\n') + '\n';
}

const nodeText = fc
  .tuple(fc.array(family, { maxLength: 5 }), fc.array(mutation, { maxLength: 3 }))
  .map(([fs, ms]) => mutate(fs.flatMap(familyText), ms));
const fleet = fc.array(nodeText, { minLength: 2, maxLength: 4 });

/** What the exporter keeps of each node: answers that fail to parse are refused whole. */
function prepared(texts: string[]): PreparedUpstream[] {
  const out: PreparedUpstream[] = [];
  texts.forEach((text, i) => {
    let families;
    try {
      families = parseExposition(text, { budget: DEFAULT_UPSTREAM_BUDGET }).families;
    } catch {
      return;
    }
    out.push(prepareUpstream(`n${i}`, 'net', families, { scrub: (t) => t.split(SECRET).join('[REDACTED]') }));
  });
  return out;
}

function headerNamesUnique(text: string): void {
  for (const kind of ['HELP', 'TYPE']) {
    const names = text
      .split('\n')
      .filter((l) => l.startsWith(`# ${kind} `))
      .map((l) => l.split(' ')[2]);
    expect(new Set(names).size).toBe(names.length);
  }
}

/** Each OpenMetrics sample belongs to the family block it is in, and to no other declared family. */
function openMetricsConsistent(text: string): void {
  const allowed = (name: string, type: string): string[] =>
    type === 'counter'
      ? [`${name}_total`, `${name}_created`]
      : type === 'histogram'
        ? [`${name}_bucket`, `${name}_sum`, `${name}_count`, `${name}_created`]
        : type === 'summary'
          ? [name, `${name}_sum`, `${name}_count`, `${name}_created`]
          : [name];
  const owner = new Map<string, string>();
  const blocks: Array<[string, string[]]> = [];
  for (const line of text.split('\n')) {
    const t = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (t) {
      const names = allowed(t[1]!, t[2]!);
      for (const n of [t[1]!, ...names]) {
        expect(owner.get(n) ?? t[1]).toBe(t[1]);
        owner.set(n, t[1]!);
      }
      blocks.push([t[1]!, names]);
    } else if (line !== '' && !line.startsWith('#')) {
      const sampleName = /^[^{ ]+/.exec(line)![0];
      expect(blocks.at(-1)?.[1]).toContain(sampleName);
    }
  }
}

function noDuplicateSeries(text: string): void {
  const { families } = parseExposition(text);
  const keys = families.flatMap((f) => f.samples.map((s) => `${s.name}${labelKey(s.labels)}`));
  expect(new Set(keys).size).toBe(keys.length);
}

describe('merged upstream output over random and mutated node answers', () => {
  it('always parses, with one header block per name, no duplicate series and no secret', () => {
    fc.assert(
      fc.property(fleet, (texts) => {
        const sources = prepared(texts);
        const text = renderUpstream(sources, { openMetrics: false });
        const om = renderUpstream(sources, { openMetrics: true });
        expect(() => parseExposition(text)).not.toThrow();
        headerNamesUnique(text);
        headerNamesUnique(om);
        noDuplicateSeries(text);
        openMetricsConsistent(om);
        // Both formats expose the same series.
        expect(om.split('\n').filter((l) => l && !l.startsWith('#'))).toEqual(
          text.split('\n').filter((l) => l && !l.startsWith('#')),
        );
        expect(text).not.toContain(SECRET);
      }),
      { numRuns: 300 },
    );
  });

  const tools = checkTools(['promtool']);
  it.skipIf(tools.skip)(
    `passes promtool check metrics${tools.skipNote}`,
    () => {
      const promtool = requireTool(tools, 'promtool');
      fc.assert(
        fc.property(fleet, (texts) => {
          const text = renderUpstream(prepared(texts), { openMetrics: false });
          const r = spawnSync(promtool, ['check', 'metrics'], { input: text, encoding: 'utf8', timeout: 20_000 });
          // Exit 3 = lint findings only (names and HELP of random families); 1 would be a parse error.
          expect(`${r.stdout}${r.stderr}`).not.toMatch(/error while linting|second TYPE|second HELP|duplicate/i);
          expect([0, 3]).toContain(r.status);
        }),
        { numRuns: 25 },
      );
    },
    120_000,
  );
});
