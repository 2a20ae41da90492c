import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readdir, readFile, rm, stat, utimes, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Registry } from 'prom-client';
import { createLogger } from '../../src/logger.js';
import { waitFor } from '../support/processes.js';
import {
  EvidenceStore,
  checkEvidenceDir,
  evidenceCollectors,
  evidenceApiResponse,
  readEvidence,
  runEvidenceCli,
  type EvidenceInput,
} from '../../src/evidence/index.js';

let dir: string;
let logLines: string[];
const stores: EvidenceStore[] = [];

function testLogger() {
  logLines = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      logLines.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  return createLogger({ level: 'info', destination });
}

async function openStore(
  settings: { maxBytes?: number; maxAgeDays?: number; sub?: string } = {},
  opts: Partial<Parameters<typeof EvidenceStore.open>[1]> = {},
) {
  const store = await EvidenceStore.open(
    {
      dir: join(dir, settings.sub ?? 'ev'),
      maxBytes: settings.maxBytes ?? 10 * 1024 * 1024,
      maxAgeDays: settings.maxAgeDays ?? 30,
    },
    { logger: testLogger(), runner: { hostname: 'test-host', version: '9.9.9' }, syncDelayMs: 1, ...opts },
  );
  stores.push(store);
  return store;
}

function input(node: string, seq: number, over: Partial<EvidenceInput> = {}): EvidenceInput {
  return {
    node,
    network: 'mainnet',
    url: 'http://user:pw-secret@127.0.0.1:9710/',
    probe: 'blockNumber',
    method: 'POST claw_blockNumber',
    status: 500 + (seq % 4),
    durationMs: seq,
    attempt: seq,
    headers: { server: 'sim' },
    body: new TextEncoder().encode(`{"error":"boom ${seq}"}`),
    runnerStatus: { consecutiveFailures: seq, lastSuccess: null },
    ...over,
  };
}

async function dirTotal(d: string): Promise<number> {
  let sum = 0;
  for (const name of await readdir(d)) sum += (await stat(join(d, name))).size;
  return sum;
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evidence-test-'));
});

afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  await rm(dir, { recursive: true, force: true });
});

describe('EvidenceStore', () => {
  it('acknowledges records once written, and reads them back newest first with filters', async () => {
    let clock = Date.UTC(2024, 4, 1, 12, 0, 0);
    const store = await openStore({}, { now: () => new Date(clock) });
    const acks: Promise<void>[] = [];
    for (let i = 0; i < 30; i++) {
      clock += 1000;
      acks.push(store.append(input(i % 3 === 0 ? 'node-a' : 'node-b', i)));
    }
    await Promise.all(acks);

    const all = await store.query({ limit: 1000 });
    expect(all.map((r) => r.attempt)).toEqual([...Array(30).keys()].reverse());
    expect(all[0]).toMatchObject({
      node: 'node-b',
      url: 'http://127.0.0.1:9710/',
      runner: { hostname: 'test-host', version: '9.9.9' },
    });

    const a = await store.query({ node: 'node-a', limit: 3 });
    expect(a.map((r) => r.attempt)).toEqual([27, 24, 21]);

    const since = await store.query({ since: new Date(Date.UTC(2024, 4, 1, 12, 0, 26)), limit: 100 });
    expect(since.map((r) => r.attempt)).toEqual([29, 28, 27, 26, 25]);

    const stats = store.stats();
    expect(stats.recordsByNode.get('node-a')).toBe(10);
    expect(stats.recordsByNode.get('node-b')).toBe(20);
    expect(stats.dropped).toBe(0);
    expect(stats.writeErrors).toBe(0);
    expect(stats.bytes).toBe(await dirTotal(join(dir, 'ev')));

    // The file itself holds complete JSON lines without the URL password.
    const [file] = await readdir(join(dir, 'ev'));
    const content = await readFile(join(dir, 'ev', file!), 'utf8');
    expect(content.endsWith('\n')).toBe(true);
    expect(content.split('\n').filter(Boolean)).toHaveLength(30);
    expect(content).not.toContain('pw-secret');
  });

  it('rotates by size and never lets the directory grow past maxBytes', async () => {
    const maxBytes = 20_000;
    const store = await openStore({ maxBytes });
    const bigBody = new TextEncoder().encode('E'.repeat(300));
    let seq = 0;
    for (let round = 0; round < 20; round++) {
      const acks = [];
      for (let i = 0; i < 15; i++) acks.push(store.append(input('node-r', seq++, { body: bigBody })));
      await Promise.all(acks);
      const total = await dirTotal(join(dir, 'ev'));
      expect(total).toBeLessThanOrEqual(maxBytes);
      expect(store.stats().bytes).toBe(total);
    }
    const files = await readdir(join(dir, 'ev'));
    // maxFileBytes defaults to maxBytes/8, so several files exist and the oldest were deleted.
    expect(files.length).toBeGreaterThanOrEqual(6);
    for (const f of files) expect((await stat(join(dir, 'ev', f))).size).toBeLessThanOrEqual(maxBytes / 8);

    const kept = await store.query({ limit: 1000 });
    expect(kept[0]!.attempt).toBe(seq - 1);
    expect(kept.length).toBeLessThan(seq);
    // Retention removes whole oldest files: what remains is a contiguous newest run.
    const attempts = kept.map((r) => r.attempt);
    expect(attempts).toEqual([...Array(kept.length).keys()].map((i) => seq - 1 - i));
    expect(store.stats().dropped).toBe(0);
  });

  it('shrinks an existing directory to a lowered maxBytes at start-up, oldest files first', async () => {
    const evDir = join(dir, 'ev');
    await mkdir(evDir);
    const names = [...Array(10).keys()].map((i) => `evidence-2024050${i}T000000000Z-000000.jsonl`);
    for (const name of names) await writeFile(join(evDir, name), 'x'.repeat(999) + '\n');
    const store = await openStore({ maxBytes: 2500 });
    expect((await readdir(evDir)).sort()).toEqual(names.slice(8));
    expect(store.stats().bytes).toBe(2000);
  });

  it('deletes files older than maxAgeDays at start-up and on the retention timer', async () => {
    const evDir = join(dir, 'ev');
    await mkdir(evDir);
    const oldName = 'evidence-20200101T000000000Z-000000.jsonl';
    const otherFile = 'notes.txt';
    await writeFile(join(evDir, oldName), '{}\n');
    await writeFile(join(evDir, otherFile), 'not ours');
    const old = new Date(Date.now() - 40 * 86_400_000);
    await utimes(join(evDir, oldName), old, old);

    const store = await openStore({ maxAgeDays: 30 }, { retentionIntervalMs: 20 });
    expect(await readdir(evDir)).toEqual([otherFile]);

    await store.append(input('node-t', 1));
    const [current] = (await readdir(evDir)).filter((f) => f.startsWith('evidence-'));
    await utimes(join(evDir, current!), old, old);
    let gone = false;
    for (let i = 0; i < 200 && !gone; i++) {
      await new Promise((r) => setTimeout(r, 10));
      gone = !(await readdir(evDir)).includes(current!);
    }
    expect(gone).toBe(true);
    // The store keeps working after its active file aged out.
    await store.append(input('node-t', 2));
    expect((await store.query({ limit: 10 })).map((r) => r.attempt)).toEqual([2]);
    expect(await readdir(evDir)).toContain(otherFile);
  });

  it('counts drops when the queue is full instead of blocking, and writes what was queued', async () => {
    // A writer that waits a minute stands in for a disk that does not keep up.
    const store = await openStore({}, { maxQueue: 5, syncDelayMs: 60_000 });
    const acks = [...Array(8).keys()].map((i) => store.append(input('node-q', i)));
    expect(store.stats().dropped).toBe(3);
    const late = await Promise.allSettled(acks.slice(5));
    expect(late.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(store.stats().recordsByNode.get('node-q')).toBeUndefined();

    await store.flush();
    const early = await Promise.allSettled(acks.slice(0, 5));
    expect(early.every((r) => r.status === 'fulfilled')).toBe(true);
    expect(store.stats().recordsByNode.get('node-q')).toBe(5);
    expect((await store.query({ limit: 100 })).map((r) => r.attempt)).toEqual([4, 3, 2, 1, 0]);
    expect(logLines.filter((l) => l.includes('evidence queue full'))).toHaveLength(1);
  });

  it('bounds the queue by bytes too, so large bodies cannot pile up in memory', async () => {
    const store = await openStore({}, { maxQueueBytes: 30_000, syncDelayMs: 60_000 });
    const big = new Uint8Array(4096).fill(0x01); // control bytes: escaped to 6 bytes each in JSON
    const acks = [...Array(4).keys()].map((i) => store.append(input('node-big', i, { body: big })));
    // Each line is over 24 KiB: only the first fits within 30,000 queued bytes.
    expect(store.stats().dropped).toBe(3);
    await store.flush();
    expect((await Promise.allSettled(acks)).map((r) => r.status)).toEqual([
      'fulfilled',
      'rejected',
      'rejected',
      'rejected',
    ]);
    // Once written, the queue has room again.
    const again = store.append(input('node-big', 9, { body: big }));
    await store.flush();
    await expect(again).resolves.toBeUndefined();
    expect(store.stats().recordsByNode.get('node-big')).toBe(2);
  });

  it('rejects an append that was dropped, without an unhandled rejection when nobody awaits', async () => {
    const store = await openStore({}, { maxQueue: 1, syncDelayMs: 60_000 });
    const first = store.append(input('node-d', 1));
    const second = store.append(input('node-d', 2)); // not awaited by a real caller
    await expect(second).rejects.toThrow(/queue full/);
    await store.flush();
    await expect(first).resolves.toBeUndefined();
    await store.close();
    await expect(store.append(input('node-d', 3))).rejects.toThrow(/closed/);
    expect(store.stats().dropped).toBe(2);
  });

  it('survives the directory vanishing or turning unwritable: retries failed records, logs once', async () => {
    const store = await openStore({}, { retryDelayMs: 20 });
    const evDir = join(dir, 'ev');
    await store.append(input('node-w', 1));

    // A file where the directory was: writes fail, polling goes on, the records wait for the disk.
    await rm(evDir, { recursive: true });
    await writeFile(evDir, 'in the way');
    const pending = [store.append(input('node-w', 2)), store.append(input('node-w', 3))];
    await waitFor('three failed tries', () => store.stats().writeErrors >= 3, { timeoutMs: 5_000, intervalMs: 10 });
    expect(store.stats().dropped).toBe(0);
    expect(logLines.filter((l) => l.includes('evidence write failed'))).toHaveLength(1);
    expect(logLines.join('\n')).not.toContain('pw-secret');

    // Back to normal: the directory is recreated and the waiting records are written, in order.
    await rm(evDir);
    await Promise.all(pending);
    await store.append(input('node-w', 4));
    expect((await store.query({ limit: 10 })).map((r) => r.attempt)).toEqual([4, 3, 2]);
    expect(store.stats().dropped).toBe(0);
    expect(logLines.some((l) => l.includes('evidence writes recovered'))).toBe(true);
  });

  it('drops and counts a record only after maxAttempts failed writes', async () => {
    const store = await openStore({}, { retryDelayMs: 5, maxAttempts: 3 });
    const evDir = join(dir, 'ev');
    await rm(evDir, { recursive: true });
    await writeFile(evDir, 'in the way');
    await expect(store.append(input('node-z', 1))).rejects.toThrow(/write failed/);
    expect(store.stats()).toMatchObject({ writeErrors: 3, dropped: 1 });
  });

  it('does not acknowledge records into a file deleted under it', async () => {
    const store = await openStore();
    const evDir = join(dir, 'ev');
    await store.append(input('node-u', 1));
    await rm(evDir, { recursive: true });
    await store.append(input('node-u', 2));
    expect((await store.query({ limit: 10 })).map((r) => r.attempt)).toEqual([2]);
  });

  it('skips torn and foreign lines when reading, never failing', async () => {
    const store = await openStore();
    for (let i = 0; i < 3; i++) await store.append(input('node-x', i));
    const evDir = join(dir, 'ev');
    const [file] = await readdir(evDir);
    const lines = (await readFile(join(evDir, file!), 'utf8')).split('\n').filter(Boolean);
    // A corrupt line in the middle, then a torn last line (a record cut mid-write).
    await writeFile(
      join(evDir, file!),
      `${lines[0]}\nnot json at all\n{"time":"2024-05-01T00:00:00Z"}\n` +
        `${lines[1]}\n${lines[2]}\n${lines[2]!.slice(0, 40)}`,
    );
    const res = await readEvidence(evDir, { limit: 100 });
    expect(res.records.map((r) => r.attempt)).toEqual([2, 1, 0]);
    expect(res.skippedLines).toBe(3);

    // A new store after the "crash" starts a new file rather than appending to the torn line.
    await store.close();
    const again = await openStore();
    await again.append(input('node-x', 3));
    expect((await again.query({ limit: 100 })).map((r) => r.attempt)).toEqual([3, 2, 1, 0]);
    expect((await readdir(evDir)).length).toBe(2);
  });

  it('refuses to open on a file where the directory should be, with a clear message', async () => {
    const blocker = join(dir, 'blocker');
    await writeFile(blocker, 'x');
    await expect(checkEvidenceDir(blocker)).resolves.toMatch(/exists but is not a directory/);
    await expect(checkEvidenceDir(join(blocker, 'sub'))).resolves.toMatch(
      /cannot be created: .*blocker is not a directory/,
    );
    await expect(checkEvidenceDir('')).resolves.toMatch(/empty/);
    await expect(
      EvidenceStore.open({ dir: blocker, maxBytes: 1000, maxAgeDays: 1 }, { logger: testLogger() }),
    ).rejects.toThrow(/blocker exists but is not a directory/);
    // Usable: an existing directory, and a missing one under a writable parent (created at open).
    await expect(checkEvidenceDir(dir)).resolves.toBeNull();
    await expect(checkEvidenceDir(join(dir, 'a', 'b'))).resolves.toBeNull();
    expect(await readdir(dir)).toEqual(['blocker']); // checking creates nothing
    const store = await openStore({ sub: join('a', 'b') });
    expect((await stat(join(dir, 'a', 'b'))).isDirectory()).toBe(true);
    await store.close();
  });
});

describe('GET /api/evidence helper', () => {
  it('answers 400 on bad parameters, 503 without a store, and the newest records otherwise', async () => {
    const store = await openStore();
    for (let i = 0; i < 5; i++) await store.append(input(i % 2 ? 'node-odd' : 'node-even', i));
    expect(await evidenceApiResponse(store, new URLSearchParams('limit=0'))).toMatchObject({ status: 400 });
    expect(await evidenceApiResponse(store, new URLSearchParams('bogus=1'))).toMatchObject({ status: 400 });
    expect(await evidenceApiResponse(null, new URLSearchParams(''))).toMatchObject({ status: 503 });
    const ok = await evidenceApiResponse(store, new URLSearchParams('node=node-even&limit=2'));
    expect(ok.status).toBe(200);
    expect('records' in ok.body && ok.body.records.map((r) => r.attempt)).toEqual([4, 2]);
  });
});

describe('evidence metrics', () => {
  it('exposes records per node, write errors, drops and directory bytes at scrape time', async () => {
    const store = await openStore({}, { maxQueue: 2, syncDelayMs: 60_000 });
    const registry = new Registry();
    evidenceCollectors(registry, store);
    const acks = [
      store.append(input('node-m1', 1)),
      store.append(input('node-m2', 2)),
      store.append(input('node-m2', 3)),
    ];
    await store.flush();
    await Promise.allSettled(acks);
    const text = await registry.metrics();
    expect(text).toContain('ledger_evidence_records_total{node="node-m1"} 1');
    expect(text).toContain('ledger_evidence_records_total{node="node-m2"} 1'); // its second record was dropped
    expect(text).toContain('ledger_evidence_dropped_total 1');
    expect(text).toContain('ledger_evidence_write_errors_total 0');
    const bytes = /ledger_evidence_bytes (\d+)/.exec(text);
    expect(Number(bytes?.[1])).toBe(await dirTotal(join(dir, 'ev')));
    expect(Number(bytes?.[1])).toBeGreaterThan(0);
  });
});

describe('evidence CLI', () => {
  async function run(args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runEvidenceCli(
      args,
      (l) => out.push(l),
      (l) => err.push(l),
    );
    return { code, out, err };
  }

  it('prints the newest records oldest first, as text or JSON, and summarises per node', async () => {
    let clock = Date.UTC(2024, 4, 1, 12, 0, 0);
    const store = await openStore({}, { now: () => new Date(clock) });
    for (let i = 0; i < 6; i++) {
      clock += 60_000;
      await store.append(input(i < 4 ? 'node-a' : 'node-b', i, { status: i === 1 ? 502 : 503 }));
    }
    const evDir = join(dir, 'ev');

    const text = await run(['--dir', evDir, '--node', 'node-a', '--limit', '2']);
    expect(text.code).toBe(0);
    expect(text.out).toHaveLength(2);
    expect(text.out[0]).toMatch(
      /^2024-05-01T12:03:00\.000Z node-a \(mainnet\) blockNumber POST claw_blockNumber -> 503 attempt=2 /,
    );
    expect(text.out[1]).toMatch(
      /^2024-05-01T12:04:00\.000Z node-a .* attempt=3 .*body="\{\\"error\\":\\"boom 3\\"\}"$/,
    );

    const json = await run(['--dir', evDir, '--json', '--since', '2024-05-01T12:05:00Z']);
    expect(json.out.map((l) => JSON.parse(l).attempt)).toEqual([4, 5]);

    const summary = await run(['--dir', evDir, '--summary']);
    expect(summary.code).toBe(0);
    expect(summary.out).toEqual([
      'node-a: 4 record(s) from 2024-05-01T12:01:00.000Z to 2024-05-01T12:04:00.000Z; status 502=1 503=3',
      'node-b: 2 record(s) from 2024-05-01T12:05:00.000Z to 2024-05-01T12:06:00.000Z; status 503=2',
    ]);

    const none = await run(['--dir', evDir, '--node', 'node-zzz']);
    expect(none).toMatchObject({ code: 0, out: ['no evidence records'] });
  });

  it('exits 2 on bad usage and 1 when the directory cannot be read', async () => {
    expect((await run([])).code).toBe(2);
    expect((await run(['--dir', dir, '--limit', '0'])).code).toBe(2);
    expect((await run(['--dir', dir, '--since', 'soon'])).code).toBe(2);
    const unknown = await run(['--dir', dir, '--frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.err.join('\n')).toMatch(/usage:/);
    const missing = await run(['--dir', join(dir, 'nope')]);
    expect(missing.code).toBe(1);
    expect(missing.err[0]).toMatch(/ENOENT/);
  });
});
