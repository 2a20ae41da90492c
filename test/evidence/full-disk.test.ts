// The built exporter writing evidence onto a real, small tmpfs that fills up (issue 15, finding
// 9): failed batches leave no empty files, are retried into the current file once space is back,
// and nothing is lost. The tmpfs is mounted in a private user+mount namespace (unshare -rm), so
// no privilege is needed; the test reads the directory through /proc/<pid>/root.
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isEvidenceFile } from '../../src/evidence/files.js';
import { CLI_PATH, requireBuiltCli, trackChild } from '../support/cliProcess.js';
import { scrapeText, sumOf } from '../support/exporterChild.js';
import { startRawServer, type RawServer } from '../support/rawServers.js';
import { waitFor } from '../support/processes.js';

const REQUIRED = process.env.REQUIRE_TMPFS === '1';

function tmpfsAvailable(): boolean {
  const probe = mkdtempSync(join(tmpdir(), 'lfe-tmpfs-probe-'));
  const r = spawnSync('unshare', ['-rm', 'sh', '-c', 'mount -t tmpfs -o size=16k tmpfs "$0"', probe], {
    encoding: 'utf8',
  });
  rmSync(probe, { recursive: true, force: true });
  return r.status === 0;
}

const available = tmpfsAvailable();
const skip = !available && !REQUIRED;
if (skip)
  console.warn(
    'unshare -rm with a tmpfs mount is not permitted here: skipping the full-disk test (set REQUIRE_TMPFS=1 to ' +
      'make this a failure)',
  );
const note = skip ? ' [SKIPPED: cannot mount a tmpfs in a user namespace; REQUIRE_TMPFS=1 makes this a failure]' : '';

let dir: string;
let node: RawServer;
let child: ReturnType<typeof spawn> | undefined;
let url = '';

/** The evidence directory as the exporter sees it (inside its mount namespace). */
const evDir = () => `/proc/${child!.pid}/root${join(dir, 'evidence')}`;
const files = () =>
  readdirSync(evDir())
    .filter(isEvidenceFile)
    .map((name) => ({ name, size: statSync(join(evDir(), name)).size }));

beforeAll(async () => {
  if (skip) return;
  requireBuiltCli();
  dir = mkdtempSync(join(tmpdir(), 'lfe-full-disk-'));
  mkdirSync(join(dir, 'evidence'));
  node = await startRawServer((_req, res) => {
    res.writeHead(503, { 'content-type': 'text/plain' }).end('upstream unavailable '.repeat(150));
  });
  const nodes = Array.from({ length: 5 }, (_, i) => `  - {name: n${i}, url: "${node.url}", network: main}`).join('\n');
  const config = join(dir, 'config.yaml');
  const yaml =
    `listen: 127.0.0.1:0\ndefaults:\n  interval: 300ms\n  timeout: 250ms\n  probes: [health]\nnodes:\n` +
    `${nodes}\nevidence:\n  dir: ./evidence\n  maxBytes: 1MiB\n`;
  rmSync(config, { force: true });
  const fd = openSync(config, 'w');
  writeSync(fd, yaml);
  closeSync(fd);
  child = spawn(
    'unshare',
    [
      '-rm',
      'sh',
      '-c',
      'mount -t tmpfs -o size=256k tmpfs "$0" && exec "$1" "$2" --config "$3" --log-format json',
      join(dir, 'evidence'),
      process.execPath,
      CLI_PATH,
      config,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  trackChild(child);
  let out = '';
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString('utf8');
    const m = /"msg":"exporter listening"/.test(out)
      ? /"url":"([^"]+)"/.exec(out.split('\n').find((l) => l.includes('exporter listening')) ?? '')
      : null;
    if (m && !url) url = m[1]!;
  });
  child.stderr!.on('data', (c: Buffer) => (out += c.toString('utf8')));
  await waitFor('exporter listening', () => url !== '', { timeoutMs: 20_000, intervalMs: 50 });
}, 60_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGKILL');
    await new Promise((r) => child!.once('exit', r));
  }
  await node?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('evidence on a disk that fills up', () => {
  it.skipIf(skip)(
    `leaves no empty files, retries failed batches into the current file and loses nothing${note}`,
    async () => {
      const metric = async (name: string) => sumOf(await scrapeText(url), name);
      await waitFor('first records', async () => (await metric('ledger_evidence_records_total')) >= 5, {
        timeoutMs: 15_000,
        intervalMs: 100,
      });

      // Fill the rest of the tmpfs with a file that is not ours.
      const filler = join(evDir(), 'filler');
      const fd = openSync(filler, 'w');
      const block = Buffer.alloc(4096, 0x61);
      try {
        for (let i = 0; i < 1024; i++) writeSync(fd, block);
      } catch (err) {
        expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
      } finally {
        closeSync(fd);
      }
      const filesWhenFull = files().length;
      await waitFor('three failed batches', async () => (await metric('ledger_evidence_write_errors_total')) >= 3, {
        timeoutMs: 30_000,
        intervalMs: 100,
      });

      const now = files();
      expect(now.filter((f) => f.size === 0).length).toBeLessThanOrEqual(1);
      expect(now.length).toBeLessThanOrEqual(filesWhenFull + 1);
      const written = await metric('ledger_evidence_records_total');

      // Space again: the waiting records are written, nothing was dropped.
      unlinkSync(filler);
      await waitFor(
        'records after space came back',
        async () => (await metric('ledger_evidence_records_total')) > written + 5,
        { timeoutMs: 30_000, intervalMs: 100 },
      );
      expect(await metric('ledger_evidence_dropped_total')).toBe(0);
      expect(files().filter((f) => f.size === 0)).toEqual([]);
    },
    90_000,
  );
});
