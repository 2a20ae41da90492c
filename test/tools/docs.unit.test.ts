// The documentation: the generated references (docs/configuration.md, metrics.md, alerts.md) are
// what the code declares today, every config key is described, every example config is valid,
// and no relative link in README.md or docs/ points at nothing.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ALERT_DEFINITIONS } from '../../src/alerting/rules/definitions/index.js';
import { generateSchemaJson, parseConfig } from '../../src/config/index.js';
import { plain } from '../../tools/docs/alertsReference.js';
import { EXAMPLE_NODES, SECTION_EXAMPLES } from '../../tools/docs/configExamples.js';
import { generatedPages } from '../../tools/docs/generate.js';
import { cell, escapeHtml } from '../../tools/docs/markdown.js';
import { metricCatalogue } from '../../tools/docs/metricCatalogue.js';
import { FLEET_PRESENCE, REGISTRY_SOURCES } from '../../tools/docs/metricPresence.js';
import { keyRows, type SchemaNode } from '../../tools/docs/schemaKeys.js';
import { brokenLinks, linksOf } from '../support/markdownLinks.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (rel: string) => readFileSync(path.join(ROOT, rel), 'utf8');

function markdownFiles(): string[] {
  const docs = readdirSync(path.join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' }).filter((f) =>
    f.endsWith('.md'),
  );
  return ['README.md', ...docs.map((f) => path.join('docs', f))];
}

describe('generated references', async () => {
  const pages = await generatedPages();

  it.each(Object.keys(pages))('%s is what the code declares (run `npm run docs` after changing its source)', (file) => {
    expect(read(file), `${file} is stale: run \`npm run docs\` and commit the result`).toBe(pages[file]);
  });

  it('every config key has a description in the schema (add .meta({ description }) where one is missing)', () => {
    const schema = JSON.parse(generateSchemaJson()) as SchemaNode;
    const rows = Object.entries(schema.properties ?? {}).flatMap(([key, node]) => keyRows(node, key, false));
    expect(rows.length).toBeGreaterThan(50);
    expect(rows.filter((r) => !r.description).map((r) => r.path)).toEqual([]);
    const page = pages['docs/configuration.md']!;
    for (const r of rows) expect(page, r.path).toContain(`| \`${r.path}\` |`);
  });

  it('every alert definition has its section, expression and runbook link in docs/alerts.md', () => {
    const page = pages['docs/alerts.md']!;
    for (const d of ALERT_DEFINITIONS) {
      expect(page).toContain(`\n## ${d.name}\n`);
      expect(page).toContain(d.promql(d.defaults));
      expect(page).toContain(`(../alerts/RUNBOOKS.md#${d.name.toLowerCase()})`);
    }
  });

  it('docs/metrics.md has every catalogue family; each presence note names a family or source', async () => {
    const c = await metricCatalogue();
    const all = [...c.fleet, ...c.exporter, ...c.process];
    expect(new Set(all.map((m) => m.name)).size).toBe(all.length);
    for (const m of all) expect(pages['docs/metrics.md'], m.name).toContain(`| \`${m.name}\` |`);
    expect(Object.keys(FLEET_PRESENCE).filter((n) => !c.fleet.some((m) => m.name === n))).toEqual([]);
    const sources = new Set(all.map((m) => m.source));
    expect(Object.keys(REGISTRY_SOURCES).filter((s) => !sources.has(s))).toEqual([]);
  });
});

describe('markdown of the generated pages', () => {
  it('escapes < and > outside code spans, and shows alert templates as placeholders', () => {
    expect(escapeHtml('a <path> and `<kept>` x>y')).toBe('a &lt;path&gt; and `<kept>` x&gt;y');
    expect(cell('one | two\nthree')).toBe('one \\| two three');
    expect(plain('Node {{ $labels.node }} is {{ printf "%.0f" $value }} behind')).toBe(
      'Node `<node>` is `<value>` behind',
    );
    expect(plain('{{ if $labels.instance }}A {{ $labels.instance }}{{ else }}B{{ end }}.')).toBe('A `<instance>`.');
  });
});

describe('docs/contract.md', () => {
  it('names only metrics and alerts the code declares', async () => {
    const contract = read('docs/contract.md');
    const c = await metricCatalogue();
    const declared = new Set([...c.fleet, ...c.exporter].map((m) => m.name));
    const metrics = [...new Set([...contract.matchAll(/`(ledger_[a-z0-9_]*[a-z0-9])[`{]/g)].map((m) => m[1]!))];
    expect(metrics.length).toBeGreaterThan(40);
    expect(metrics.filter((n) => !declared.has(n))).toEqual([]);
    const alerts = [...new Set([...contract.matchAll(/\b(Ledger[A-Z][A-Za-z]+)\b/g)].map((m) => m[1]!))];
    expect(alerts.length).toBeGreaterThan(10);
    expect(alerts.filter((n) => !ALERT_DEFINITIONS.some((d) => d.name === n))).toEqual([]);
  });
});

describe('example configs in docs/configuration.md', () => {
  it("config/example-paging.yaml is valid with its one variable and names the simulator's nodes", () => {
    const config = parseConfig(read('config/example-paging.yaml'), {
      file: 'config/example-paging.yaml',
      env: { NTFY_URL: 'https://ntfy.sh/ledger-oncall-7f3k2' },
    });
    expect(config.nodes.map((n) => n.url)).toEqual([1, 2, 3].map((i) => `http://127.0.0.1:9710/n/node-${i}`));
    expect(config.alerting?.receivers.map((r) => r.name)).toEqual(['phone']);
    expect(read('README.md')).toContain('config/example-paging.yaml');
  });

  it.each(Object.entries(SECTION_EXAMPLES))('the %s example is a valid config', (section, yaml) => {
    const text = /^nodes:/m.test(yaml) ? yaml : `${yaml}${EXAMPLE_NODES}`;
    const config = parseConfig(text, { file: `${section}.yaml`, env: { RPC_TOKEN: 'example-token' } });
    expect(config.nodes.length).toBeGreaterThan(0);
    if (section !== 'nodes' && section !== 'defaults' && section !== 'networks' && section !== 'listen')
      expect(config).toHaveProperty(section);
  });
});

describe('links in README.md and docs/', () => {
  it('tells a missing file, a missing heading and a link out of the tree from good links', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'lfe-links-'));
    try {
      mkdirSync(path.join(dir, 'docs'));
      writeFileSync(path.join(dir, 'docs', 'b.md'), '# Title\n\n## The `polling` key\n\n## Twice\n\n## Twice\n');
      writeFileSync(
        path.join(dir, 'a.md'),
        [
          '[ok](docs/b.md) [ok](docs/b.md#the-polling-key) [ok](docs/b.md#twice-1) [ok](#here) [ok](docs/) ' +
            '[web](https://example.org/x#y)',
          '[gone](docs/c.md) [bad anchor](docs/b.md#nothing) [out](../elsewhere.md) <img src="docs/none.png">',
          '`[in code](nowhere.md)`',
          '```',
          '[in a fence](nowhere.md)',
          '```',
          '## Here',
        ].join('\n'),
      );
      const broken = brokenLinks(path.join(dir, 'a.md'), dir).map((b) => [b.link, b.why]);
      expect(broken).toEqual([
        ['docs/c.md', 'no such file'],
        ['docs/b.md#nothing', 'no heading for #nothing'],
        ['../elsewhere.md', 'leaves the repository'],
        ['docs/none.png', 'no such file'],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('README.md is a front door: at most 300 lines, with links into docs/', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(300);
    expect(
      linksOf(read('README.md')).filter((l) => l.startsWith('docs/') && l.endsWith('.md')).length,
    ).toBeGreaterThanOrEqual(5);
  });

  it.each(markdownFiles())('every relative link of %s points at a file and heading that exist', (file) => {
    expect(brokenLinks(path.join(ROOT, file), ROOT)).toEqual([]);
  });
});
