// The built CLI (dist/cli.js) as a child process, with its whole stdout and stderr kept so a
// test can search every byte it wrote. Children are tracked and killed if the test process
// exits early; every wait is bounded.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CLI_PATH = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/** Output beyond this is a test failure (nothing unsearched may slip through). */
const MAX_OUTPUT_BYTES = 32 * 1024 * 1024;

/** Fails with a clear message when the CLI has not been built (`npm test` builds it first). */
export function requireBuiltCli(): void {
  if (!existsSync(CLI_PATH))
    throw new Error(`${CLI_PATH} is missing: run \`npm run build\` (npm test builds it) before this test`);
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The process wrote more than the cap and was killed: assert this is false. */
  overflow: boolean;
}

interface Captured {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<CliResult>;
}

const live = new Set<ChildProcess>();
let hooked = false;

/** Kills the child when the test process exits, should a test forget to stop it. */
export function trackChild(child: ChildProcess): void {
  live.add(child);
  child.once('close', () => live.delete(child));
  if (!hooked) {
    hooked = true;
    process.once('exit', () => {
      for (const c of live) c.kill('SIGKILL');
    });
  }
}

function spawnCli(args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string }): Captured {
  const child = spawn(process.execPath, [CLI_PATH, ...args], {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  trackChild(child);
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  let total = 0;
  const keep = (into: Buffer[]) => (chunk: Buffer) => {
    total += chunk.length;
    if (total > MAX_OUTPUT_BYTES) {
      child.kill('SIGKILL');
      return;
    }
    into.push(chunk);
  };
  child.stdout.on('data', keep(out));
  child.stderr.on('data', keep(err));
  const stdout = () => Buffer.concat(out).toString('utf8');
  const stderr = () => Buffer.concat(err).toString('utf8');
  const exited = new Promise<CliResult>((resolve) => {
    // 'close' comes after both pipes are drained, so no output is lost.
    child.once('close', (code, signal) => {
      resolve({ code, signal, stdout: stdout(), stderr: stderr(), overflow: total > MAX_OUTPUT_BYTES });
    });
    child.once('error', (e) => {
      resolve({
        code: null,
        signal: null,
        stdout: stdout(),
        stderr: `${stderr()}\n[spawn error] ${e.message}`,
        overflow: false,
      });
    });
  });
  return { child, stdout, stderr, exited };
}

/** Runs the CLI to its exit (killed after timeoutMs, which shows as signal SIGKILL). */
export async function runCli(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  const run = spawnCli(args, opts);
  const timer = setTimeout(() => run.child.kill('SIGKILL'), opts.timeoutMs ?? 15_000);
  try {
    return await run.exited;
  } finally {
    clearTimeout(timer);
  }
}

export interface DaemonProcess {
  /** Base URL from the "exporter listening" log line. */
  url: string;
  stdout(): string;
  stderr(): string;
  /** SIGTERM, SIGKILL after graceMs; resolves with everything the process wrote. */
  stop(graceMs?: number): Promise<CliResult>;
}

/**
 * Starts the exporter with JSON logs and waits for its "exporter listening" line. Rejects, with
 * the output so far, when the process exits first or does not listen within readyTimeoutMs.
 */
export async function startDaemonProcess(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; readyTimeoutMs?: number } = {},
): Promise<DaemonProcess> {
  const run = spawnCli(args, opts);
  let stopped: Promise<CliResult> | undefined;
  const stop = (graceMs = 5_000): Promise<CliResult> => {
    stopped ??= (async () => {
      if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGTERM');
      const timer = setTimeout(() => run.child.kill('SIGKILL'), graceMs);
      try {
        return await run.exited;
      } finally {
        clearTimeout(timer);
      }
    })();
    return stopped;
  };
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 15_000);
  let exitedEarly: CliResult | undefined;
  void run.exited.then((r) => (exitedEarly = r));
  for (;;) {
    const url = listeningUrl(run.stdout());
    if (url) return { url, stdout: run.stdout, stderr: run.stderr, stop };
    if (exitedEarly) {
      throw new Error(
        `exporter exited (code ${exitedEarly.code}) before listening:\n${exitedEarly.stdout}\n${exitedEarly.stderr}`,
      );
    }
    if (Date.now() > deadline) {
      const r = await stop(1_000);
      throw new Error(`exporter did not listen in time:\n${r.stdout}\n${r.stderr}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** JSON log lines of a run; lines that are not JSON are skipped. */
export function jsonLines(text: string): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      /* a partial last line */
    }
  }
  return out;
}

function listeningUrl(stdout: string): string | undefined {
  const line = jsonLines(stdout).find((l) => l.msg === 'exporter listening');
  return typeof line?.url === 'string' ? line.url : undefined;
}
