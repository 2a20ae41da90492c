// A log file in the config directory (stdout redirected next to the config, as with a plain
// systemd or shell setup) must not make the watcher reload on every log line (issue 15, finding
// 10): a rejected config is counted once however much is logged after it.
import { spawn } from 'node:child_process';
import { appendFileSync, closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_PATH, requireBuiltCli, trackChild } from '../support/cliProcess.js';
import { sampleValue, scrapeText } from '../support/exporterChild.js';
import { configYaml, writeAtomically } from '../support/lifecycleFiles.js';
import { startRawServer, type RawServer } from '../support/rawServers.js';
import { waitFor } from '../support/processes.js';

let dir: string;
let node: RawServer;
let child: ReturnType<typeof spawn> | undefined;
let url = '';
const logPath = () => join(dir, 'exporter.log');

beforeAll(async () => {
  requireBuiltCli();
  dir = mkdtempSync(join(tmpdir(), 'lfe-watch-log-'));
  node = await startRawServer((_req, res) => void res.writeHead(503).end('down'));
  writeAtomically(join(dir, 'config.yaml'), configYaml({ nodes: [{ name: 'n1', url: node.url }] }));
  const fd = openSync(logPath(), 'a');
  child = spawn(
    process.execPath,
    [CLI_PATH, '--config', join(dir, 'config.yaml'), '--log-format', 'json', '--log-level', 'debug'],
    { stdio: ['ignore', fd, fd] },
  );
  closeSync(fd);
  trackChild(child);
  await waitFor(
    'exporter listening',
    () => {
      const m = /"msg":"exporter listening"[^\n]*"url":"([^"]+)"|"url":"([^"]+)"[^\n]*"msg":"exporter listening"/.exec(
        readFileSync(logPath(), 'utf8'),
      );
      if (m) url = (m[1] ?? m[2])!;
      return url !== '';
    },
    { timeoutMs: 20_000, intervalMs: 50 },
  );
}, 40_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGKILL');
    await new Promise((r) => child!.once('exit', r));
  }
  await node?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('config watcher with a log file beside the config', () => {
  it('counts a rejected config once while the log keeps growing', async () => {
    writeAtomically(
      join(dir, 'config.yaml'),
      configYaml({ nodes: [{ name: 'n1', url: node.url }], extra: 'bogus_key: 1' }),
    );
    await waitFor(
      'rejected reload',
      async () =>
        sampleValue(await scrapeText(url), 'ledger_exporter_config_reloads_total', { result: 'failure' }) === 1,
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    // Log lines keep landing beside the config (here appended by the test, as any writer to
    // that log would): 20 writes over 2 s, each an event in the watched directory.
    for (let i = 0; i < 20; i++) {
      appendFileSync(logPath(), `{"msg":"another log line ${i}"}\n`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 1000));
    const text = await scrapeText(url);
    expect(sampleValue(text, 'ledger_exporter_config_reloads_total', { result: 'failure' })).toBe(1);
    const rejections = readFileSync(logPath(), 'utf8')
      .split('\n')
      .filter((l) => l.includes('configuration reload rejected'));
    expect(rejections).toHaveLength(1);
  }, 40_000);
});
