// The built CLI end to end: check-config exit codes and messages, start-up refusal of an unusable
// evidence directory, and the evidence subcommand over records written by a running exporter.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimFleet } from '../../src/sim/index.js';
import { runCli, sampleValue, startExporter, waitForMetrics, type ExporterChild } from '../support/exporterChild.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'lfe-cli-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** 1-based line and column of the first occurrence of `needle` in `text`. */
function positionOf(text: string, needle: string): { line: number; col: number } {
  const at = text.indexOf(needle);
  if (at < 0) throw new Error(`${needle} not in text`);
  const before = text.slice(0, at).split('\n');
  return { line: before.length, col: before[before.length - 1]!.length + 1 };
}

describe('check-config', () => {
  it('exits 0 for config/example-small.yaml and says what it found', async () => {
    const r = await runCli(['check-config', 'config/example-small.yaml']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('OK (3 nodes in 1 network)');
  });

  it('exits 1 with file:line:col lines for each problem of a broken file', async () => {
    const text = [
      'listen: 127.0.0.1:9715',
      'defaults:',
      '  interval: 15s',
      '  intervall: 20s',
      'nodes:',
      '  - name: a',
      '    url: http://127.0.0.1:9710',
      '    timeout: soon',
      '  - name: a',
      '    url: http://127.0.0.1:9711',
      '',
    ].join('\n');
    const file = join(dir, 'broken.yaml');
    writeFileSync(file, text);
    const r = await runCli(['check-config', file]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const lines = r.stdout.split('\n').filter((l) => l.startsWith(`${file}:`) && /^[^:]+:\d+:\d+: /.test(l));
    // Unknown key, bad duration, duplicate name: three problems, each at its own position.
    const unknown = positionOf(text, 'intervall');
    const badDuration = positionOf(text, 'soon');
    expect(
      lines.some(
        (l) => l.startsWith(`${file}:${unknown.line}:${unknown.col}: defaults.intervall`) && l.includes('intervall'),
      ),
    ).toBe(true);
    expect(
      lines.some(
        (l) => l.startsWith(`${file}:${badDuration.line}:${badDuration.col}: nodes[0].timeout`) && /duration/i.test(l),
      ),
    ).toBe(true);
    expect(
      lines.some((l) => l.startsWith(`${file}:9:`) && l.includes('nodes[1].name') && /duplicate|unique/i.test(l)),
    ).toBe(true);
    expect(r.stdout).toMatch(/3 problems found/);
  });

  it('exits 1 for a 1ns poll interval, naming the floor at its position', async () => {
    const text = 'defaults: {interval: 1ns}\nnodes:\n  - name: a\n    url: http://127.0.0.1:9710\n';
    const file = join(dir, 'tiny-interval.yaml');
    writeFileSync(file, text);
    const r = await runCli(['check-config', file]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const at = positionOf(text, '1ns');
    expect(r.stdout).toContain(`${file}:${at.line}:${at.col}: defaults.interval: duration must be at least 100ms`);
  });

  it('exits 2 for a file that does not exist', async () => {
    const missing = join(dir, 'no-such-config.yaml');
    const r = await runCli(['check-config', missing]);
    expect(r.code).toBe(2);
    expect(r.stdout + r.stderr).toContain('ENOENT');
  });

  it('exits 1 when evidence.dir is a regular file, and the exporter refuses to start on it', async () => {
    const blocker = join(dir, 'evidence-is-a-file');
    writeFileSync(blocker, 'not a directory\n');
    const file = join(dir, 'evidence-file.yaml');
    writeFileSync(
      file,
      `listen: 127.0.0.1:0\nnodes:\n  - name: a\n    url: http://127.0.0.1:9\nevidence:\n  dir: ${blocker}\n`,
    );
    const check = await runCli(['check-config', file]);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(`evidence.dir ${blocker} exists but is not a directory`);

    const run = await runCli(['--config', file, '--log-format', 'json']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('not a directory');
  });

  it('exits 1 when evidence.dir would have to be created under a regular file', async () => {
    const blocker = join(dir, 'plain-file');
    writeFileSync(blocker, 'x');
    const file = join(dir, 'evidence-under-file.yaml');
    writeFileSync(
      file,
      `nodes:\n  - name: a\n    url: http://127.0.0.1:9\nevidence:\n  dir: ${join(blocker, 'evidence')}\n`,
    );
    const r = await runCli(['check-config', file]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('cannot be created');
  });
});

describe('evidence subcommand over a running exporter', () => {
  let fleet: SimFleet;
  let exporter: ExporterChild | undefined;
  const evidenceDir = () => join(dir, 'run', 'evidence');

  beforeAll(async () => {
    fleet = await SimFleet.start(
      [
        { name: 'p502', network: 'main', fault: 'proxy_502' },
        { name: 'p503', network: 'main', fault: 'proxy_503' },
        { name: 'fine', network: 'main' },
      ],
      { layout: 'port-per-node', blockTimeMs: 1000 },
    );
    mkdirSync(join(dir, 'run'));
    const file = join(dir, 'run', 'exporter.yaml');
    writeFileSync(
      file,
      [
        'listen: 127.0.0.1:0',
        'defaults:',
        '  interval: 300ms',
        '  timeout: 250ms',
        '  probes: [health, blockNumber]',
        'nodes:',
        ...fleet.nodes.map((n) => `  - {name: ${n.name}, url: "${n.url}", network: ${n.network}}`),
        'evidence:',
        '  dir: ./evidence',
        '',
      ].join('\n'),
    );
    exporter = await startExporter(file);
  });

  afterAll(async () => {
    await exporter?.kill();
    await fleet?.close();
  });

  it('--summary prints per-node counts and statuses of what the exporter wrote', async () => {
    const url = exporter!.url;
    // Acknowledged (synced) records as the exporter counts them; at least a few for each failing node.
    const acked = await waitForMetrics(
      url,
      'evidence for both failing nodes',
      (t) => {
        const a = sampleValue(t, 'ledger_evidence_records_total', { node: 'p502' }) ?? 0;
        const b = sampleValue(t, 'ledger_evidence_records_total', { node: 'p503' }) ?? 0;
        return a >= 3 && b >= 3 ? { a, b } : undefined;
      },
      20_000,
      exporter!.output,
    );

    const r = await runCli(['evidence', '--dir', evidenceDir(), '--node', 'p502', '--summary']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1); // only the node asked for
    const m = /^p502: (\d+) record\(s\) from (\S+) to (\S+); status (.*)$/.exec(lines[0]!);
    expect(m, r.stdout).not.toBeNull();
    const count = Number(m![1]);
    expect(count).toBeGreaterThanOrEqual(acked.a);
    expect(m![4]).toBe(`502=${count}`);
    expect(Date.parse(m![2]!)).toBeLessThanOrEqual(Date.parse(m![3]!));

    // The same records as JSON, newest last, all of the node asked for; the healthy node has none.
    const json = await runCli(['evidence', '--dir', evidenceDir(), '--node', 'p503', '--json', '--limit', '1000']);
    expect(json.code).toBe(0);
    const records = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { node: string; status: number; url: string; headers: Record<string, string> });
    expect(records.length).toBeGreaterThanOrEqual(acked.b);
    expect(records.every((x) => x.node === 'p503' && x.status === 503 && x.headers.server === 'nginx')).toBe(true);
    const none = await runCli(['evidence', '--dir', evidenceDir(), '--node', 'fine', '--summary']);
    expect(none.stdout.trim()).toBe('no evidence records');
  });

  it('rejects bad usage with exit 2 and a missing directory with exit 1', async () => {
    const bad = await runCli(['evidence', '--dir', evidenceDir(), '--limit', '0']);
    expect(bad.code).toBe(2);
    expect(bad.stdout + bad.stderr).toContain('--limit');
    const missing = await runCli(['evidence', '--dir', join(dir, 'nowhere')]);
    expect(missing.code).toBe(1);
    expect(missing.stdout + missing.stderr).toContain('ENOENT');
  });
});
