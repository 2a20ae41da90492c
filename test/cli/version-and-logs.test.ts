// --version prints what ledger_exporter_build_info says (version, revision, Node.js version), as
// Prometheus tools do; --log-format pretty writes colour only to a terminal, never into a file or pipe.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_PATH, requireBuiltCli, runCli, startDaemonProcess, trackChild } from '../support/cliProcess.js';
import { waitFor } from '../support/processes.js';

let dir: string;
let config: string;

beforeAll(() => {
  requireBuiltCli();
  dir = mkdtempSync(join(tmpdir(), 'lfe-cli-version-'));
  config = join(dir, 'fleet.yaml');
  // A node nobody answers for: the exporter runs and logs without any fleet.
  writeFileSync(
    config,
    ['nodes:', '  - name: a', '    url: http://127.0.0.1:9', `evidence: {dir: ${join(dir, 'evidence')}}`, ''].join(
      '\n',
    ),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('--version', () => {
  it('prints the version, revision and Node.js version that ledger_exporter_build_info exports', async () => {
    const r = await runCli(['--version']);
    expect(r.code).toBe(0);
    const printed = /^ledger-fleet-exporter, version (\S+) \(revision: (\S+)\)\n {2}node version: (\S+)\n/.exec(
      r.stdout,
    );
    expect(printed, r.stdout).not.toBeNull();
    const daemon = await startDaemonProcess(['--config', config, '--listen', '127.0.0.1:0', '--log-format', 'json']);
    try {
      const metrics = await (await fetch(`${daemon.url}/metrics`)).text();
      const info =
        /^ledger_exporter_build_info\{version="([^"]+)",revision="([^"]+)",nodejs_version="([^"]+)"\} 1$/m.exec(
          metrics,
        );
      expect(info, metrics.slice(0, 2000)).not.toBeNull();
      expect(info!.slice(1)).toEqual(printed!.slice(1));
      expect(printed![3]).toBe(process.version);
      // From git at build time (a commit), or unknown where the build had neither git nor REVISION.
      expect(printed![2]).toMatch(/^([0-9a-f]{40}|unknown)$/);
    } finally {
      await daemon.stop();
    }
  });
});

describe('--log-format pretty', () => {
  const args = () => ['--config', config, '--listen', '127.0.0.1:0', '--log-format', 'pretty'];

  it('writes no colour codes into a pipe or file', async () => {
    const child = spawn(process.execPath, [CLI_PATH, ...args()], { stdio: ['ignore', 'pipe', 'pipe'] });
    trackChild(child);
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    const exited = new Promise((resolve) => child.once('close', resolve));
    try {
      await waitFor('the exporter listening', () => out.includes('exporter listening'), {
        timeoutMs: 20_000,
        intervalMs: 100,
        context: () => out,
      });
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    expect(out).not.toContain('\u001b[');
  });

  it.skipIf(!existsSync('/usr/bin/script'))(
    'colours its lines on a terminal',
    () => {
      // script(1) gives the exporter a terminal; timeout stops it with SIGTERM (a closing terminal sends SIGHUP: a
      // reload).
      const command = `timeout -s TERM 12 ${process.execPath} ${CLI_PATH} ${args().join(' ')}`;
      const r = spawnSync('script', ['-qfec', command, '/dev/null'], { encoding: 'utf8', timeout: 30_000 });
      expect(r.stdout).toContain('exporter listening');
      expect(r.stdout).toContain('\u001b[');
    },
    40_000,
  );
});
