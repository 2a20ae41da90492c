// The image holds no local state: the Docker build context, listed from the working tree with
// .dockerignore applied by Docker's own matching rules (@balena/dockerignore, as testcontainers
// builds our image), keeps what the Dockerfile copies and none of what a run writes: evidence,
// alert state and status history wherever the example configs and the defaults put them
// (config/data/ for the walkthroughs), build outputs, logs and .env files.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ALERTING_DEFAULTS } from '../../src/alerting/configSchema.js';
import { parseConfig } from '../../src/config/index.js';
import { statusFileFor } from '../../src/status/service.js';

// A CommonJS module whose typings declare an ES default export: loaded as Node.js loads it.
const ignore = createRequire(import.meta.url)('@balena/dockerignore') as typeof import('@balena/dockerignore').default;

const ROOT = path.resolve(import.meta.dirname, '../..');
const rules = ignore().add(readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n'));

/** The build context as Docker sends it: every file of the tree that .dockerignore lets through. */
function contextList(dir = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (rules.ignores(rel)) continue;
    if (e.isDirectory()) out.push(...contextList(rel));
    else out.push(rel);
  }
  return out;
}

/** Files a run writes, relative to the repository, from each example config and from the defaults. */
function runtimeFiles(): string[] {
  const configs = readdirSync(path.join(ROOT, 'config')).filter((f) => f.endsWith('.yaml'));
  const dirs: Array<{ evidence: string; alerting: string }> = [];
  for (const f of configs) {
    const doc = (parseYaml(readFileSync(path.join(ROOT, 'config', f), 'utf8')) ?? {}) as {
      evidence?: { dir?: string };
      alerting?: { stateDir?: string };
    };
    const base = path.join(ROOT, 'config');
    dirs.push({
      evidence: path.resolve(base, doc.evidence?.dir ?? defaultEvidenceDir(base)),
      alerting: path.resolve(base, doc.alerting?.stateDir ?? ALERTING_DEFAULTS.stateDir),
    });
  }
  // A config in the repository's root (as `check-config fleet.yaml` run there would use).
  dirs.push({ evidence: defaultEvidenceDir(ROOT), alerting: path.resolve(ROOT, ALERTING_DEFAULTS.stateDir) });
  return dirs
    .flatMap((d) => [
      path.join(d.evidence, 'evidence-2026-11-28.jsonl'),
      statusFileFor(d.evidence),
      path.join(d.alerting, 'alerts.json'),
    ])
    .map((p) => path.relative(ROOT, p))
    .filter((p) => !p.startsWith('..') && !path.isAbsolute(p));
}

/** The evidence directory the exporter picks when the config names none (its own default, resolved). */
function defaultEvidenceDir(base: string): string {
  const config = parseConfig('nodes:\n  - name: a\n    url: http://127.0.0.1:9710\n', {
    file: path.join(base, 'fleet.yaml'),
    env: {},
  });
  return config.evidence.dir;
}

describe('.dockerignore', () => {
  const context = contextList();

  it('leaves out every file a run writes, config/data/ included', () => {
    const runtime = runtimeFiles();
    expect(runtime).toContain('config/data/alerting/alerts.json');
    expect(runtime).toContain('config/data/evidence/evidence-2026-11-28.jsonl');
    expect(runtime).toContain('config/data/status-history.json');
    expect(runtime).toContain('data/alerting/alerts.json');
    for (const file of runtime) expect(rules.ignores(file), file).toBe(true);
    for (const other of ['dist/cli.js', 'dist-bench/bench/run.js', 'dist-tools/x.js', 'coverage/index.html'])
      expect(rules.ignores(other), other).toBe(true);
    for (const other of ['.env', 'config/.env.local', 'exporter.log', 'config/.tmp/x', 'node_modules/x/index.js'])
      expect(rules.ignores(other), other).toBe(true);
  });

  it('the context of this tree holds no local state, and everything the Dockerfile copies', () => {
    const bad = context.filter(
      (f) => /(^|\/)(data|\.tmp|node_modules|dist|dist-bench|dist-tools|coverage|\.git)\//.test(f) || /\.log$/.test(f),
    );
    expect(bad).toEqual([]);
    const copies = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')
      .split('\n')
      .filter((l) => /^COPY\s/.test(l) && !/--from=/.test(l))
      .flatMap((l) => l.split(/\s+/).slice(1, -1))
      .filter((p) => !p.startsWith('--'));
    expect(copies).toEqual(expect.arrayContaining(['src', 'config', 'package.json']));
    for (const src of copies)
      expect(
        context.some((f) => f === src || f.startsWith(`${src}/`)),
        src,
      ).toBe(true);
    expect(context).toContain('src/cli.ts');
    expect(context).toContain('config/example-fleet.yaml');
  });
});
