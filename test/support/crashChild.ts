// Crash tests run a fixture script under plain Node and SIGKILL it at a chosen moment. The child
// needs JavaScript: the src modules it imports are compiled (no type check, about a second) into a
// temp dir, independent of dist/ and of others' work in progress.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export interface ChildBuild {
  /** The temp dir; the compiled modules are under its `build/`, mirroring src/. */
  work: string;
  /** The compiled file of a src module: `js('evidence/index')`. */
  js(module: string): string;
  /**
   * Runs test/fixtures/<script> with `args`; each whole line it prints goes to `onLine`, which
   * returns true to SIGKILL it there. Resolves with how it ended once killed; rejects (with its
   * stderr) if it exits before.
   */
  runUntilKilled(
    script: string,
    args: string[],
    onLine: (line: string) => boolean,
  ): Promise<{ signal: NodeJS.Signals | null }>;
  /** Kills a child still running and removes the temp dir. */
  close(): Promise<void>;
}

/** Compiles `modules` (paths under src/, e.g. 'status/persist.ts') and what they import into a new temp dir. */
export async function buildForChild(prefix: string, modules: string[]): Promise<ChildBuild> {
  const work = await mkdtemp(join(tmpdir(), prefix));
  const out = join(work, 'build');
  const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
  const options = ['--noCheck', '--outDir', out, '--rootDir', join(repo, 'src')];
  const target = ['--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--target', 'ES2022'];
  const sources = modules.map((m) => join(repo, 'src', m));
  await promisify(execFile)(
    process.execPath,
    [tsc, ...options, ...target, '--skipLibCheck', '--types', 'node', ...sources],
    {
      cwd: repo,
    },
  );
  await writeFile(join(out, 'package.json'), '{"type":"module"}\n');
  await symlink(join(repo, 'node_modules'), join(work, 'node_modules'), 'dir');
  let child: ChildProcess | undefined;
  return {
    work,
    js: (module) => join(out, `${module}.js`),
    runUntilKilled(script, args, onLine) {
      return new Promise((done, reject) => {
        const proc = spawn(process.execPath, [join(repo, 'test', 'fixtures', script), ...args], {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        child = proc;
        let buffered = '';
        let stderr = '';
        let killed = false;
        proc.stdout.setEncoding('utf8');
        proc.stdout.on('data', (chunk: string) => {
          buffered += chunk;
          const lines = buffered.split('\n');
          buffered = lines.pop() ?? ''; // an incomplete line is not said yet
          for (const line of lines) {
            // Every line said reaches onLine, those after the kill in the same chunk too.
            if (!onLine(line) || killed) continue;
            killed = true;
            proc.kill('SIGKILL');
          }
        });
        proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        proc.on('error', reject);
        proc.on('exit', (code, signal) =>
          killed ? done({ signal }) : reject(new Error(`child exited early (code ${code}): ${stderr}`)),
        );
      });
    },
    async close() {
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await rm(work, { recursive: true, force: true });
    },
  };
}
