// kill -9 in the middle of replacing the status history file (written in pieces): the old file
// stays whole and loads, the partial temp file is never read, and the next save replaces it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { NodeHistory } from '../../src/status/history.js';
import { loadStatusFile, writeStatusFile } from '../../src/status/persist.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const childScript = join(repo, 'test', 'fixtures', 'status-file-crash-child.mjs');
let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'status-crash-'));
  // The child runs plain Node: compile just the status file modules (no type check) into the temp dir.
  const out = join(work, 'build');
  await promisify(execFile)(
    process.execPath,
    [
      join(repo, 'node_modules', 'typescript', 'bin', 'tsc'),
      '--noCheck',
      '--outDir',
      out,
      '--rootDir',
      join(repo, 'src'),
      '--module',
      'NodeNext',
      '--moduleResolution',
      'NodeNext',
      '--target',
      'ES2022',
      '--skipLibCheck',
      '--types',
      'node',
      join(repo, 'src', 'status', 'persist.ts'),
    ],
    { cwd: repo },
  );
  await writeFile(join(out, 'package.json'), '{"type":"module"}\n');
  await symlink(join(repo, 'node_modules'), join(work, 'node_modules'), 'dir');
}, 60_000);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** Runs the child until it stops mid-write, then SIGKILLs it. */
function killMidWrite(file: string): Promise<string[]> {
  return new Promise((done, reject) => {
    const build = join(work, 'build', 'status');
    const proc = spawn(process.execPath, [childScript, join(build, 'persist.js'), join(build, 'history.js'), file], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const said: string[] = [];
    let stderr = '';
    proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (chunk: string) => {
      for (const line of chunk.split('\n').filter(Boolean)) {
        said.push(line);
        if (line === 'mid') proc.kill('SIGKILL');
      }
    });
    proc.on('error', reject);
    proc.on('exit', (code, signal) =>
      signal === 'SIGKILL' ? done(said) : reject(new Error(`child exited ${code}: ${stderr}`)),
    );
  });
}

describe('status history file, crash while writing', () => {
  it('keeps the previous file whole when the writer dies mid-write, and the next save replaces it', async () => {
    const dir = join(work, 'state');
    const file = join(dir, 'status-history.json');
    expect(await killMidWrite(file)).toEqual(['saved', 'mid']);

    // The partial new content exists (the kill came mid-write) but only in the temp file.
    const names = await readdir(dir);
    const temp = names.find((n) => n.endsWith('.tmp'));
    expect(temp).toBeDefined();
    expect((await stat(join(dir, temp!))).size).toBeGreaterThanOrEqual(256 * 1024);
    const old = (await loadStatusFile(file))!;
    expect(old.nodes.map((n) => n.name)).toEqual(['old-1', 'old-2']);
    expect(old.nodes[0]!.history.entries()).toEqual([
      { at: 1e12, outcome: 'up', durationMs: 12, reason: { code: 'none', n: 0 } },
    ]);

    // A restarted exporter saves over it as usual.
    const h = new NodeHistory();
    h.add({ at: 3e12, outcome: 'down', durationMs: 2000, reason: { code: 'timeout', n: 2 } });
    await writeStatusFile(
      file,
      { nodes: [{ name: 'after', history: h, status: 'down', since: 3e12 }], events: [] },
      3e12,
    );
    const back = (await loadStatusFile(file))!;
    expect(back.nodes.map((n) => [n.name, n.status, n.since])).toEqual([['after', 'down', 3e12]]);
    expect(back.nodes[0]!.history.entries()).toEqual(h.entries());
  }, 60_000);
});
