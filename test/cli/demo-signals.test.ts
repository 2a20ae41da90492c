// One Ctrl-C stops the demo cleanly however it was started. A terminal sends SIGINT to its whole
// foreground process group, so each starter runs here as the leader of a new group and the test
// signals the group, as the terminal would: npm start (npm passes its copy on: the demo gets two),
// npx (npm exec and a shell in between) and node dist/cli.js demo. The two copies often arrive
// close enough to merge into one, so under npm the test also sends the parent's copy itself, a
// moment after the group's. Each time the demo logs
// "stopped" (its clean exit), never "second signal", its per-run state directory is gone and
// nothing of the group is left running.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI_PATH, jsonLines, requireBuiltCli, trackChild } from '../support/cliProcess.js';
import { waitFor } from '../support/processes.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const DEMO_ARGS = ['--listen', '127.0.0.1:0', '--simulator-listen', '127.0.0.1:0', '--log-format', 'json'];

beforeAll(() => requireBuiltCli());

const groupAlive = (pgid: number): boolean => {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The demo's own node process in the group (not npm, npx or the shell). */
function demoPid(pgid: number): number | undefined {
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const pgrp = Number(/\) \S+ \d+ (\d+)/.exec(readFileSync(`/proc/${e}/stat`, 'utf8'))?.[1]);
      const argv = readFileSync(`/proc/${e}/cmdline`, 'utf8').split('\0');
      const node = /(^|\/)node$/.test(argv[0]!);
      if (pgrp === pgid && node && argv.some((a) => a.endsWith('dist/cli.js')) && argv.includes('demo'))
        return Number(e);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  state: string;
}

/** Starts `command` as a process group leader, waits for the demo banner, sends SIGINT to the group once. */
async function ctrlC(command: string, args: string[], opts: { parentsCopy?: boolean } = {}): Promise<Ended> {
  const child = spawn(command, args, {
    cwd: REPO,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  trackChild(child);
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.once('exit', (code, signal) => resolve([code, signal])),
  );
  const pgid = child.pid!;
  try {
    await waitFor('the demo banner', () => /Ctrl-C stops/.test(out), { timeoutMs: 30_000, context: () => out });
    const state = /state:\s+(\S+) \(/.exec(out)![1]!;
    expect(existsSync(state)).toBe(true);
    const demo = opts.parentsCopy ? demoPid(pgid) : undefined;
    if (opts.parentsCopy) expect(demo, 'the demo process in the group').toBeGreaterThan(0);
    process.kill(-pgid, 'SIGINT');
    if (demo !== undefined) {
      await new Promise((r) => setTimeout(r, 50));
      try {
        process.kill(demo, 'SIGINT');
      } catch (err) {
        // Already gone: it stopped on the group's copy within those 50 ms.
        if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
      }
    }
    const [code, signal] = await exited;
    await waitFor('every process of the group to end', () => !groupAlive(pgid), { timeoutMs: 10_000, intervalMs: 100 });
    return { code, signal, out, state };
  } finally {
    if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
  }
}

function expectCleanStop(r: Ended): void {
  const msgs = jsonLines(r.out).map((l) => l.msg);
  expect(msgs.filter((m) => m === 'shutting down')).toHaveLength(1);
  expect(msgs).toContain('stopped');
  expect(r.out).not.toContain('second signal');
  expect(existsSync(r.state)).toBe(false);
}

describe('one Ctrl-C stops the demo', () => {
  it('under npm start (two SIGINTs reach the demo): exits 0, state removed', async () => {
    const r = await ctrlC('npm', ['start', '--ignore-scripts', '--silent', '--', ...DEMO_ARGS], { parentsCopy: true });
    expectCleanStop(r);
    expect([r.code, r.signal]).toEqual([0, null]);
  }, 60_000);

  it('started directly with node: exits 0, state removed', async () => {
    const r = await ctrlC(process.execPath, [CLI_PATH, 'demo', ...DEMO_ARGS]);
    expectCleanStop(r);
    expect([r.code, r.signal]).toEqual([0, null]);
  }, 60_000);

  it('under npx: the demo stops cleanly, state removed, npx does not report a failure', async () => {
    const r = await ctrlC('npx', ['--no-install', 'node', CLI_PATH, 'demo', ...DEMO_ARGS], { parentsCopy: true });
    expectCleanStop(r);
    // npx runs the command through /bin/sh. Debian's dash dies of the terminal's SIGINT itself
    // (bash would exit 0 after a child that handled it), and npm then re-raises that signal:
    // interrupted, as a shell reports a Ctrl-C'd command, never exit code 1.
    if (r.signal === null) expect(r.code).toBe(0);
    else expect(r.signal).toBe('SIGINT');
  }, 60_000);
});
