// watch-services.json is read back as every state file is: strictly. A record written by the
// exporter loads whole; one with a byte that is not UTF-8 (a service type read as U+FFFD would be
// another type) is damaged: set aside, reported, and the record starts afresh.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadRecord, saveRecord, SERVICE_RECORD_FILE } from '../../src/watch/serviceRecord.js';
import { waitFor } from '../support/processes.js';

const NOW = Date.UTC(2026, 10, 29);
let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the services record on disk', () => {
  it('loads what it saved', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'lfe-svc-record-'));
    await saveRecord(dir, new Map([['k', ['translation', 'inference']]]), NOW);
    expect(loadRecord(dir, NOW)).toEqual({ record: new Map([['k', ['translation', 'inference']]]) });
  });

  it('takes a byte that is not UTF-8 for damage: set aside, reported, started afresh', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'lfe-svc-record-'));
    await saveRecord(dir, new Map([['k', ['translation']]]), NOW);
    const file = path.join(dir, SERVICE_RECORD_FILE);
    const bytes = readFileSync(file);
    const at = bytes.indexOf('translation');
    bytes[at] = 0xff;
    writeFileSync(file, bytes);
    const load = loadRecord(dir, NOW);
    expect(load.record).toEqual(new Map());
    expect(load.problem).toMatch(/is damaged: set aside/);
    await waitFor(
      'the damaged copy',
      () => (readdirSync(dir).some((f) => f !== SERVICE_RECORD_FILE) ? true : undefined),
      {
        timeoutMs: 5_000,
      },
    );
  });
});
