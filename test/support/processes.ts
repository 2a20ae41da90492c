// Child processes and polling helpers for end-to-end tests: every child is tracked so it can be
// stopped in afterAll (and, as a last resort, when the test process exits), waits are bounded.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

export interface ManagedProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** The last few KiB of stdout and stderr, for failure messages. */
  output(): string;
  /** SIGTERM, then SIGKILL after graceMs; resolves once the process has exited. */
  stop(graceMs?: number): Promise<void>;
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Synchronous last resort if afterAll never ran (crash, timeout of the runner).
  process.once('exit', () => {
    for (const child of live) child.kill('SIGKILL');
  });
}

export function startProcess(
  name: string,
  command: string,
  args: string[],
  opts: { cwd?: string } = {},
): ManagedProcess {
  installExitHook();
  const child = spawn(command, args, { cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-8192);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', (err) => {
      tail += `\n[spawn error] ${err.message}`;
      resolve();
    });
  });
  void exited.then(() => live.delete(child));
  return {
    name,
    child,
    output: () => tail,
    async stop(graceMs = 5_000) {
      if (child.exitCode !== null || child.signalCode !== null || !live.has(child)) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A port that was free on 127.0.0.1 a moment ago (for programs that cannot report their own). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * The one bounded wait of the tests: polls `probe` until it returns a value other than undefined
 * or false, or fails after timeoutMs with a message naming what was awaited (and `context()`,
 * e.g. child process output). A probe that throws is retried until the deadline.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  opts: { timeoutMs: number; intervalMs?: number; context?: () => string },
): Promise<T> {
  const deadline = Date.now() + opts.timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const cause = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(
        `timed out after ${opts.timeoutMs} ms waiting for ${what}${cause}${opts.context ? `\n${opts.context()}` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 250));
  }
}

/** Waits until `<url>/readyz` answers 2xx (the daemon's first poll round is done); `headers` e.g. basic auth. */
export function waitReady(
  url: string,
  what: string,
  opts: { timeoutMs: number; headers?: Record<string, string>; context?: () => string },
): Promise<true> {
  const ready = async () => ((await fetch(`${url}/readyz`, { headers: opts.headers })).ok ? true : undefined);
  return waitFor(what, ready, { timeoutMs: opts.timeoutMs, context: opts.context });
}

/** GET a URL on loopback and parse JSON; throws on a non-2xx status. */
export async function getJson<T = unknown>(url: string): Promise<T> {
  const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status}`);
  return (await res.json()) as T;
}
