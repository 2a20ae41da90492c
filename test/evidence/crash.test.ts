// kill -9 during a 5xx burst: every record the child saw acknowledged must be on disk and
// parseable afterwards, and a torn last line must not break reading.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendFile, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createLogger } from '../../src/logger.js';
import { EvidenceStore, readEvidence } from '../../src/evidence/index.js';
import { buildForChild, type ChildBuild } from '../support/crashChild.js';

let build: ChildBuild;

beforeAll(async () => {
  build = await buildForChild('evidence-crash-', ['evidence/index.ts']);
});

afterAll(async () => {
  await build.close();
});

/** Runs the child until it has printed `minAcks` acknowledgements, then SIGKILLs it mid-burst. */
async function burstThenKill(
  dir: string,
  minAcks: number,
): Promise<{ acked: Set<number>; signal: NodeJS.Signals | null }> {
  const acked = new Set<number>();
  const { signal } = await build.runUntilKilled(
    'evidence-crash-child.mjs',
    [build.js('evidence/index'), dir],
    (line) => {
      const m = /^ack (\d+)$/.exec(line);
      if (m) acked.add(Number(m[1]));
      return acked.size >= minAcks;
    },
  );
  return { acked, signal };
}

describe('evidence survives kill -9', () => {
  it('keeps every acknowledged record of a burst, readable after restart', async () => {
    const dir = join(build.work, 'evidence');
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
