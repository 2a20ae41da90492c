// The demo as a new user meets it: `npm start` shows an alert firing and resolving through its
// printing receiver within the first minute, stops on a SIGINT sent to the npm process alone,
// removes its per-run state; a taken port makes it exit non-zero with everything it started
// stopped; and it stops when the process that started it dies.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_PATH, requireBuiltCli, runCli, trackChild } from '../support/cliProcess.js';
import { freePort, waitFor } from '../support/processes.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
let dir: string;

beforeAll(() => {
  requireBuiltCli();
  dir = mkdtempSync(join(tmpdir(), 'lfe-cli-demo-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A child with its output kept; killed if the test process exits first. */
function spawnKept(
  command: string,
  args: string[],
  opts: { detached?: boolean } = {},
): { child: ChildProcess; out: () => string } {
  const child = spawn(command, args, {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FORCE_COLOR: '0' },
    detached: opts.detached,
  });
  trackChild(child);
  let text = '';
  child.stdout.on('data', (c: Buffer) => (text += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (text += c.toString('utf8')));
  return { child, out: () => text };
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The pids whose parent is `pid` (from /proc). */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        return Number(/\) \S+ (\d+)/.exec(readFileSync(`/proc/${e}/stat`, 'utf8'))?.[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

const statePath = (out: string) => /state:\s+(\S+) \(/.exec(out)?.[1];

describe('npm start', () => {
  it('pages and resolves LedgerNodeDown in its first minute; a SIGINT to npm stops it, state removed', async () => {
    const port = await freePort();
    const npm = spawnKept('npm', [
      'start',
      '--ignore-scripts',
      '--silent',
      '--',
      '--listen',
      `127.0.0.1:${port}`,
      '--simulator-listen',
      '127.0.0.1:0',
      '--log-format',
      'json',
    ]);
    const node = await waitFor(
      'the demo (node) under npm',
      () => childrenOf(npm.child.pid!).find((pid) => alive(pid)),
      { timeoutMs: 20_000, context: npm.out },
    );
    await waitFor('the demo banner', () => /Ctrl-C stops/.test(npm.out()), { timeoutMs: 20_000, context: npm.out });
    const state = statePath(npm.out())!;
    expect(npm.out()).toContain('new for this run, removed when the demo stops');
    expect(existsSync(state)).toBe(true);
    const status = await fetch(`http://127.0.0.1:${port}/api/alerts`);
    expect(((await status.json()) as { enabled: boolean }).enabled).toBe(true);
    await waitFor(
      'rpc-flaky FIRING then RESOLVED in the receiver lines',
      () => /FIRING LedgerNodeDown critical rpc-flaky[\s\S]*RESOLVED LedgerNodeDown critical rpc-flaky/.test(npm.out()),
      {
        // Due at about 45 s (rpc-flaky fails from 20 s to 40 s); a loaded machine gets the next round too.
        timeoutMs: 100_000,
        intervalMs: 500,
        context: npm.out,
      },
    );
    expect(npm.out()).toMatch(/FIRING LedgerNodeDown critical test-proxy \(testnet\)/);

    process.kill(npm.child.pid!, 'SIGINT');
    await waitFor('the demo process to exit after SIGINT to npm', () => !alive(node), {
      timeoutMs: 8_000,
      intervalMs: 100,
      context: npm.out,
    });
    expect(existsSync(state)).toBe(false);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2_000) })).rejects.toThrow();
  }, 160_000);
});

describe('the demo command', () => {
  let busy: Server;
  let busyPort: number;

  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', () => resolve()));
    busyPort = (busy.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

  it('exits non-zero when its port is taken, saying what to do, with the simulated nodes stopped', async () => {
    const r = await runCli(
      ['demo', '--listen', `127.0.0.1:${busyPort}`, '--simulator-listen', '127.0.0.1:0', '--log-format', 'json'],
      { timeoutMs: 20_000 },
    );
    expect(r.signal).toBeNull(); // exited by itself: nothing it started kept it alive
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`127.0.0.1:${busyPort} is already in use (another demo or exporter?)`);
    expect(r.stderr).toContain('--listen <host:port>');
    const sim = await runCli(['demo', '--listen', '127.0.0.1:0', '--simulator-listen', `127.0.0.1:${busyPort}`], {
      timeoutMs: 20_000,
    });
    expect(sim.signal).toBeNull();
    expect(sim.code).toBe(1);
    expect(sim.stderr).toContain('--simulator-listen <host:port>');
  }, 45_000);

  it('stops when the process that started it is killed, keeping a --state-dir it was given', async () => {
    const state = join(dir, 'kept');
    const args = [
      'demo',
      '--listen',
      '127.0.0.1:0',
      '--simulator-listen',
      '127.0.0.1:0',
      '--state-dir',
      state,
      '--log-format',
      'json',
    ];
    // A shell that starts the demo and is then killed with SIGKILL: the demo gets no signal at all.
    const quoted = [CLI_PATH, ...args].map((a) => `'${a}'`).join(' ');
    const sh = spawnKept('sh', ['-c', `${process.execPath} ${quoted} & echo "demo pid $!"; wait`]);
    const pid = Number(
      await waitFor('the demo pid', () => /demo pid (\d+)/.exec(sh.out())?.[1], { timeoutMs: 10_000, context: sh.out }),
    );
    await waitFor('the demo banner', () => /Ctrl-C stops/.test(sh.out()), { timeoutMs: 20_000, context: sh.out });
    expect(sh.out()).toContain(`${state} (kept across runs`);
    sh.child.kill('SIGKILL');
    await waitFor('the orphaned demo to stop', () => !alive(pid), { timeoutMs: 8_000, intervalMs: 100 });
    expect(existsSync(join(state, 'evidence'))).toBe(true);
  }, 45_000);
});
