// `evidence --summary | head -1`: the reader closes the pipe after one line; the command ends
// quietly with status 0 instead of dying on EPIPE with a stack trace.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EvidenceStore } from '../../src/evidence/index.js';
import { createLogger } from '../../src/logger.js';
import { requireBuiltCli } from '../support/cliProcess.js';

const NODES = 3_000;

describe('evidence output into a pipe closed early', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lfe-evidence-epipe-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  beforeAll(async () => {
    requireBuiltCli();
    const store = await EvidenceStore.open(
      { dir, maxBytes: 64 * 1024 * 1024, maxAgeDays: 30 },
      { logger: createLogger({ level: 'silent' }), runner: { hostname: 'h', version: '1' }, syncDelayMs: 1 },
    );
    // One summary line per node: far more than a pipe holds.
    const acks = [];
    for (let i = 0; i < NODES; i++) {
      acks.push(
        store.append({
          node: `node-${i}`,
          network: 'main',
          url: 'http://127.0.0.1:9710/',
          probe: 'health',
          method: 'GET /health',
          status: 503,
          durationMs: 1,
          attempt: 1,
          headers: {},
          body: new TextEncoder().encode('{}'),
          runnerStatus: { consecutiveFailures: 1, lastSuccess: null },
        }),
      );
    }
    await Promise.all(acks);
    await store.close();
  }, 60_000);

  it('exits 0 with nothing on stderr', () => {
    const run = spawnSync(
      'bash',
      ['-c', `set -o pipefail; node dist/cli.js evidence --dir '${dir}' --summary | head -1`],
      { encoding: 'utf8', timeout: 30_000 },
    );
    expect(run.stdout.split('\n').filter(Boolean)).toHaveLength(1);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  }, 40_000);
});
