// The built CLI (dist/cli.js) as a child process, for lifecycle and CLI tests: run a subcommand to
// completion, or start the exporter and follow its JSON log on stdout. Waits are bounded; every
// child started here is killed when the test process exits, even if a test forgot to stop it.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { parseExposition } from '../../src/exposition/index.js';
import { CLI_PATH, requireBuiltCli, runCli as runCliProcess, trackChild, type CliResult } from './cliProcess.js';
import { waitFor } from './processes.js';

export const CLI = CLI_PATH;
export const REPO = fileURLToPath(new URL('../..', import.meta.url));
export { requireBuiltCli };

export type CliRun = CliResult;

/** Runs `node dist/cli.js <args>` from the repository root to completion; SIGKILLed after timeoutMs. */
export function runCli(args: string[], opts: { timeoutMs?: number; cwd?: string } = {}): Promise<CliRun> {
  requireBuiltCli();
  return runCliProcess(args, { cwd: opts.cwd ?? REPO, timeoutMs: opts.timeoutMs ?? 20_000 });
}

export type LogLine = Record<string, unknown> & { msg?: string; level?: number };

export interface ExporterChild {
  readonly child: ChildProcess;
  /** Base URL from the "exporter listening" log line. */
  readonly url: string;
  /** JSON log lines seen so far (stdout). */
  logs(): LogLine[];
  /** stdout lines that were not JSON, and stderr: for failure messages. */
  output(): string;
  waitForLog(what: string, match: (l: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** Resolves with the exit code and signal once the process has exited (or rejects after timeoutMs). */
  exited(timeoutMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL if still running; resolves once it has exited. */
  kill(): Promise<void>;
}

/**
 * Starts `node dist/cli.js --config <file> --log-format json` and waits until it listens;
 * `onSpawn` runs meanwhile, from the moment the process exists (e.g. to signal it during start-up).
 */
export async function startExporter(
  configPath: string,
  extraArgs: string[] = [],
  timeoutMs = 20_000,
  onSpawn?: (child: ChildProcess) => Promise<void>,
  /** The child's environment (default this process's), e.g. LD_PRELOAD of libfaketime. */
  env?: NodeJS.ProcessEnv,
): Promise<ExporterChild> {
  requireBuiltCli();
  const child = spawn(
    process.execPath,
    [CLI, '--config', configPath, '--log-format', 'json', '--log-level', 'info', ...extraArgs],
    {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(env ? { env } : {}),
    },
  );
  trackChild(child);
  const lines: LogLine[] = [];
  let other = '';
  const waiters = new Set<() => void>();
  let partial = '';
  child.stdout.on('data', (c: Buffer) => {
    partial += c.toString('utf8');
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    for (const p of parts) {
      try {
        lines.push(JSON.parse(p) as LogLine);
      } catch {
        other = (other + p + '\n').slice(-8192);
      }
    }
    for (const w of waiters) w();
  });
  child.stderr.on('data', (c: Buffer) => {
    other = (other + c.toString('utf8')).slice(-8192);
  });
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exitPromise = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      for (const w of waiters) w();
      resolve(exit);
    });
  });
  const output = () =>
    `--- exporter output ---\n${other}\n--- last log lines ---\n${lines
      .slice(-15)
      .map((l) => JSON.stringify(l))
      .join('\n')}`;

  const waitForLog = (what: string, match: (l: LogLine) => boolean, limitMs = 15_000) =>
    new Promise<LogLine>((resolve, reject) => {
      const check = () => {
        const hit = lines.find(match);
        if (hit) return done(() => resolve(hit));
        if (exit)
          return done(() =>
            reject(new Error(`exporter exited (${JSON.stringify(exit)}) before logging ${what}\n${output()}`)),
          );
      };
      const timer = setTimeout(
        () => done(() => reject(new Error(`timed out after ${limitMs} ms waiting for log: ${what}\n${output()}`))),
        limitMs,
      );
      const done = (fn: () => void) => {
        clearTimeout(timer);
        waiters.delete(check);
        fn();
      };
      waiters.add(check);
      check();
    });

  const [listening] = await Promise.all([
    waitForLog('exporter listening', (l) => l.msg === 'exporter listening' && typeof l.url === 'string', timeoutMs),
    onSpawn?.(child),
  ]).catch(async (err: unknown) => {
    child.kill('SIGKILL');
    await exitPromise;
    throw err;
  });
  return {
    child,
    url: listening.url as string,
    logs: () => lines,
    output,
    waitForLog,
    exited: (limitMs) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`exporter still running after ${limitMs} ms\n${output()}`)),
          limitMs,
        );
        void exitPromise.then((e) => {
          clearTimeout(timer);
          resolve(e);
        });
      }),
    async kill() {
      if (!exit) child.kill('SIGKILL');
      await exitPromise;
    },
  };
}

/** GET <url>/metrics as text. */
export async function scrapeText(url: string): Promise<string> {
  const res = await request(`${url}/metrics`, { headersTimeout: 5_000, bodyTimeout: 5_000 });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`GET /metrics: HTTP ${res.statusCode}`);
  return text;
}

/** The value of one series exactly as exposed (`name{labels}`), or undefined when absent. */
export function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** Every sample of `name` whose labels include `labels`, parsed with the project's exposition parser. */
export function samples(text: string, name: string, labels: Record<string, string> = {}): number[] {
  const out: number[] = [];
  for (const f of parseExposition(text).families) {
    for (const s of f.samples) {
      if (s.name !== name) continue;
      if (Object.entries(labels).every(([k, v]) => s.labels[k] === v)) out.push(s.value);
    }
  }
  return out;
}

/** The one sample of `name` with these labels, or undefined when there is none (throws if several). */
export function sampleValue(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples(text, name, labels);
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0];
}

/** Scrapes until `pick(text)` returns a value; bounded. On timeout the message quotes the last scrape's key lines. */
export async function waitForMetrics<T>(
  url: string,
  what: string,
  pick: (text: string) => T | undefined,
  timeoutMs = 15_000,
  context?: () => string,
): Promise<T> {
  let last = '';
  const excerpt = () =>
    last
      .split('\n')
      .filter(
        (l) =>
          l.startsWith('ledger_node_up') || l.startsWith('ledger_exporter_config') || l.startsWith('ledger_evidence'),
      )
      .join('\n');
  return waitFor(what, async () => pick((last = await scrapeText(url))), {
    timeoutMs,
    intervalMs: 150,
    context: () => [excerpt(), context?.()].filter(Boolean).join('\n'),
  });
}

/** Total of `name` over every label set (e.g. evidence records of all nodes). */
export function sumOf(text: string, name: string, labels: Record<string, string> = {}): number {
  return samples(text, name, labels).reduce((a, b) => a + b, 0);
}
