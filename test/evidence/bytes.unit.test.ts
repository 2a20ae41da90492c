// Evidence read back (the API, the status page, the CLI): a line with a byte that is not UTF-8 is
// not a record (skipped and counted), never shown with U+FFFD in place of what was written.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readEvidence } from '../../src/evidence/files.js';

const dir = mkdtempSync(path.join(tmpdir(), 'lfe-evidence-bytes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const record = (node: string) =>
  JSON.stringify({
    time: '2026-11-28T12:00:00.000Z',
    runner: { hostname: 'h', version: '1' },
    node,
    network: 'main',
    url: 'http://127.0.0.1:9710',
    probe: 'health',
    method: 'GET',
    status: 502,
    durationMs: 3,
    attempt: 1,
    headers: {},
    body: 'bad gateway',
    bodyTruncated: false,
    runnerStatus: { consecutiveFailures: 1, lastSuccess: null },
  });

describe('evidence lines that are not UTF-8', () => {
  it('are skipped and counted; whole lines around them are read', async () => {
    const bad = Buffer.from(`${record('n1')}\n`);
    bad[bad.indexOf('"node":"n1"') + 9] = 0xb1;
    writeFileSync(
      path.join(dir, 'evidence-20261128T120000000Z-000000.jsonl'),
      Buffer.concat([Buffer.from(`${record('n2')}\n`), bad, Buffer.from(`${record('n3')}\n`)]),
    );
    const r = await readEvidence(dir, { limit: Infinity });
    expect(r.records.map((x) => x.node)).toEqual(['n3', 'n2']);
    expect(r.skippedLines).toBe(1);
  });
});
