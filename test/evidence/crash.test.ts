// kill -9 during a 5xx burst: every record the child saw acknowledged must be on disk and
// parseable afterwards, and a torn last line must not break reading.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { appendFile, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createLogger } from '../../src/logger.js';
import { EvidenceStore, readEvidence } from '../../src/evidence/index.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const childScript = join(repo, 'test', 'fixtures', 'evidence-crash-child.mjs');
let work: string;
let child: ChildProcess | undefined;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'evidence-crash-'));
  // The child runs plain Node, so it needs JavaScript: compile just the evidence module (no type
  // check, about a second) into the temp dir, independent of dist/ and of others' work in progress.
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
      join(repo, 'src', 'evidence', 'index.ts'),
    ],
    { cwd: repo },
  );
  await writeFile(join(out, 'package.json'), '{"type":"module"}\n');
  await symlink(join(repo, 'node_modules'), join(work, 'node_modules'), 'dir');
});

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await rm(work, { recursive: true, force: true });
});

/** Runs the child until it has printed `minAcks` acknowledgements, then SIGKILLs it mid-burst. */
function burstThenKill(dir: string, minAcks: number): Promise<{ acked: Set<number>; signal: NodeJS.Signals | null }> {
  return new Promise((resolvePromise, reject) => {
    const proc = spawn(process.execPath, [childScript, join(work, 'build', 'evidence', 'index.js'), dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    const acked = new Set<number>();
    let buffered = '';
    let stderr = '';
    let killed = false;
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? ''; // an incomplete line is not an acknowledgement
      for (const line of lines) {
        const m = /^ack (\d+)$/.exec(line);
        if (m) acked.add(Number(m[1]));
      }
      if (!killed && acked.size >= minAcks) {
        killed = true;
        proc.kill('SIGKILL');
      }
    });
    proc.stderr.on('data', (c) => (stderr += String(c)));
    proc.on('error', reject);
    proc.on('exit', (code, signal) => {
      if (!killed) reject(new Error(`child exited early (code ${code}): ${stderr}`));
      else resolvePromise({ acked, signal });
    });
  });
}

describe('evidence survives kill -9', () => {
  it('keeps every acknowledged record of a burst, readable after restart', async () => {
    const dir = join(work, 'evidence');
    await mkdir(dir);
    const { acked, signal } = await burstThenKill(dir, 400);
    expect(signal).toBe('SIGKILL');
    expect(acked.size).toBeGreaterThanOrEqual(400);

    // Rotation happened during the burst, so acknowledged records span several files.
    const files = (await readdir(dir)).filter((f) => f.endsWith('.jsonl')).sort();
    expect(files.length).toBeGreaterThan(2);

    // Simulate the worst case of a crash mid-write: a torn record at the end of the newest file.
    await appendFile(join(dir, files.at(-1)!), '{"time":"2024-05-01T00:00:00.000Z","runner":{"hostname":"cr');

    const before = await readEvidence(dir, { limit: Number.POSITIVE_INFINITY });
    expect(before.skippedLines).toBe(1);
    const onDisk = new Set(before.records.map((r) => r.attempt));
    const missing = [...acked].filter((n) => !onDisk.has(n));
    expect(missing).toEqual([]);
    for (const r of before.records)
      expect(r).toMatchObject({ status: 503, probe: 'health', runner: { hostname: 'crash-child' } });

    // Restart: the store opens on the crashed directory and carries on in a fresh file.
    const store = await EvidenceStore.open(
      { dir, maxBytes: 64 * 1024 * 1024, maxAgeDays: 30 },
      {
        logger: createLogger({ level: 'silent' }),
        runner: { hostname: 'restarted', version: '0.0.0' },
        syncDelayMs: 1,
      },
    );
    try {
      await store.append({
        node: 'node-0',
        network: 'mainnet',
        url: 'http://127.0.0.1:9710/',
        probe: 'health',
        method: 'GET /health',
        status: 502,
        durationMs: 1,
        attempt: -1,
        headers: {},
        body: new Uint8Array(),
        runnerStatus: { consecutiveFailures: 1, lastSuccess: null },
      });
      const after = await store.query({ limit: Number.POSITIVE_INFINITY });
      expect(after[0]).toMatchObject({ attempt: -1, runner: { hostname: 'restarted' } });
      const afterSet = new Set(after.map((r) => r.attempt));
      expect([...acked].filter((n) => !afterSet.has(n))).toEqual([]);
      expect(store.stats().bytes).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });
});
