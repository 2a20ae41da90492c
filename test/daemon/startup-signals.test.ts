// SIGTERM and SIGINT while the exporter starts (the built CLI in a child process): held from the
// entry point's first line, logged once there is a logger, and a clean stop with exit 0 once the
// daemon has started; a start that fails still exits with its error. The signal is sent as soon
// as the process catches SIGHUP (held on the same first line, after SIGTERM and SIGINT; Node.js
// catches those two from its own start), while the rest of the CLI loads.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimFleet } from '../../src/sim/index.js';
import { CLI_PATH, jsonLines, requireBuiltCli, trackChild, type CliResult } from '../support/cliProcess.js';
import { configYaml } from '../support/lifecycleFiles.js';
import { waitFor } from '../support/processes.js';

let root: string;
let fleet: SimFleet;

beforeAll(async () => {
  requireBuiltCli();
  root = mkdtempSync(join(tmpdir(), 'lfe-startup-signals-'));
  fleet = await SimFleet.start([{ name: 'n1', network: 'main' }], { layout: 'port-per-node', blockTimeMs: 1000 });
});

afterAll(async () => {
  await fleet?.close();
  rmSync(root, { recursive: true, force: true });
});

/** Whether process `pid` catches signal number `n`: bit n-1 of SigCgt in /proc/<pid>/status (Linux). */
function catches(pid: number, n: number): boolean {
  const m = /^SigCgt:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m !== null && ((BigInt(`0x${m[1]}`) >> BigInt(n - 1)) & 1n) === 1n;
}

/** Starts the exporter on `config`, sends `signal` once the entry point's first line ran, and waits for its exit. */
async function signalDuringStart(
  name: string,
  config: string,
  signal: 'SIGTERM' | 'SIGINT',
): Promise<CliResult & { sent: boolean }> {
  const file = join(root, `${name}.yaml`);
  writeFileSync(file, config);
  const child = spawn(process.execPath, [CLI_PATH, '--config', file, '--log-format', 'json'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  trackChild(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  // 'close' comes after both pipes are drained, so no output is lost.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, sig) => resolve({ code, signal: sig })),
  );
  // A last resort only, should the process never exit: the assertions below then fail on SIGKILL.
  const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  try {
    await waitFor(
      'the CLI to catch SIGHUP (its first line ran)',
      () => child.exitCode === null && catches(child.pid!, 1),
      { timeoutMs: 15_000, intervalMs: 2 },
    );
    const sent = child.kill(signal);
    return { ...(await exited), stdout, stderr, overflow: false, sent };
  } finally {
    clearTimeout(killer);
  }
}

describe.each(['SIGTERM', 'SIGINT'] as const)('%s during start-up', (signal) => {
  it.skipIf(process.platform !== 'linux')(
    'is held and logged; the exporter starts, then stops cleanly and exits 0',
    async () => {
      const r = await signalDuringStart(
        `ok-${signal}`,
        configYaml({ nodes: [{ name: 'n1', url: fleet.node('n1').url }], evidenceDir: `./evidence-${signal}` }),
        signal,
      );
      expect(r.sent).toBe(true);
      expect({ code: r.code, signal: r.signal }, `${r.stdout}\n${r.stderr}`).toEqual({ code: 0, signal: null });
      const logs = jsonLines(r.stdout);
      const msgs = logs.map((l) => l.msg);
      const noted = logs.findIndex(
        (l) =>
          l.msg === 'stop requested during start-up: the exporter stops once it has started' && l.signal === signal,
      );
      expect(noted, r.stdout).toBeGreaterThanOrEqual(0);
      expect(noted).toBeLessThan(msgs.indexOf('exporter listening'));
      const stopping = logs.findIndex((l) => l.msg === 'shutting down' && l.signal === signal);
      expect(stopping).toBeGreaterThan(msgs.indexOf('exporter listening'));
      expect(logs.filter((l) => l.msg === 'shutting down')).toHaveLength(1);
      expect(msgs).not.toContain('shutdown failed');
    },
    60_000,
  );
});

describe('a start that fails while a stop is held', () => {
  it.skipIf(process.platform !== 'linux')(
    'exits with its error, not by the signal',
    async () => {
      const config = configYaml({ nodes: [{ name: 'n1', url: fleet.node('n1').url }], extra: 'scrape_interval: 15s' });
      const r = await signalDuringStart('invalid', config, 'SIGTERM');
      expect(r.sent).toBe(true);
      expect({ code: r.code, signal: r.signal }, `${r.stdout}\n${r.stderr}`).toEqual({ code: 1, signal: null });
      expect(r.stderr).toMatch(/invalid\.yaml:\d+:\d+: .*scrape_interval/);
      expect(
        jsonLines(r.stdout).some(
          (l) => l.msg === 'stop requested during start-up: the exporter stops once it has started',
        ),
      ).toBe(true);
    },
    60_000,
  );
});
