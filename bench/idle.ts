// What a small daemon costs while nothing happens: the CLI run on a 1-node config (the node
// simulated), as an operator starts it, measured from outside: RSS (anonymous and file-backed),
// CPU, and wake-ups per second (context switches of all its threads over a quiet window).
// `--snapshot` also has it write a V8 heap snapshot (bench/heapSummary.ts reads and compares them).
// Usage: node dist-bench/bench/idle.js [--dist dir] [--seconds 30] [--snapshot dir] [--config-extra file.yaml]
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { endsWithBench } from './children.js';
import { startFleet } from './fleet.js';
import { cpuSplitFromProc } from './proc.js';

const { values } = parseArgs({
  options: {
    dist: { type: 'string', default: fileURLToPath(new URL('../../dist', import.meta.url)) },
    seconds: { type: 'string', default: '30' },
    warm: { type: 'string', default: '20' },
    snapshot: { type: 'string' },
    'config-extra': { type: 'string' },
  },
});

/** Issue 43's goal for a 1-node daemon. */
const RSS_GOAL_MB = 65;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Voluntary and involuntary context switches of every thread of a process: each is a wake-up or a preemption. */
function contextSwitches(pid: number): number {
  let n = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      const status = readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8');
      for (const m of status.matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)$/gm)) n += Number(m[1]);
    } catch {
      // a thread that ended meanwhile
    }
  }
  return n;
}

function statusKb(pid: number, key: string): number {
  const m = new RegExp(`^${key}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : Number.NaN;
}

const threads = (pid: number) => readdirSync(`/proc/${pid}/task`).length;

async function main(): Promise<void> {
  const fleet = await startFleet(1, { layout: 'port-per-node', perProcess: 1 });
  const dir = mkdtempSync(join(tmpdir(), 'lfe-idle-'));
  const node = fleet.nodes[0]!;
  const extra = values['config-extra'] ? readFileSync(values['config-extra'], 'utf8') : '';
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    `listen: 127.0.0.1:0\nnodes:\n  - name: ${node.name}\n    url: ${node.url}\n    network: ${node.network}\n` +
      `evidence:\n  dir: ${join(dir, 'evidence')}\n${extra}`,
  );
  const snapDir = values.snapshot ? resolve(values.snapshot) : dir;
  const child = endsWithBench(
    spawn(
      process.execPath,
      [
        ...(values.snapshot ? ['--heapsnapshot-signal=SIGUSR2'] : []),
        join(values.dist, 'cli.js'),
        '--config',
        config,
        '--log-format',
        'json',
      ],
      { cwd: snapDir, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, MALLOC_MMAP_THRESHOLD_: '131072' } },
    ),
  );
  try {
    for await (const line of createInterface({ input: child.stdout })) if (line.includes('exporter listening')) break;
    const pid = child.pid!;
    child.stdout.resume();
    await sleep(Number(values.warm) * 1000);
    const s0 = contextSwitches(pid);
    const c0 = cpuSplitFromProc(pid);
    const seconds = Number(values.seconds);
    await sleep(seconds * 1000);
    const s1 = contextSwitches(pid);
    const c1 = cpuSplitFromProc(pid);
    const figures = {
      dist: values.dist,
      seconds,
      wakeupsPerSecond: (s1 - s0) / seconds,
      cpuMsPerSecond: (c1.userMs + c1.sysMs - c0.userMs - c0.sysMs) / seconds,
      threads: threads(pid),
      rssMb: statusKb(pid, 'VmRSS') / 1024,
      rssAnonMb: statusKb(pid, 'RssAnon') / 1024,
      rssFileMb: statusKb(pid, 'RssFile') / 1024,
    };
    if (values.snapshot) {
      const before = new Set(readdirSync(snapDir));
      child.kill('SIGUSR2');
      for (let i = 0; i < 100 && readdirSync(snapDir).every((f) => before.has(f)); i++) await sleep(200);
      await sleep(2000);
    }
    process.stdout.write(
      `1 node idle: RSS ${figures.rssMb.toFixed(1)} MB (anonymous ${figures.rssAnonMb.toFixed(1)} MB, file-backed ` +
        `${figures.rssFileMb.toFixed(1)} MB; goal under ${RSS_GOAL_MB} MB), ${figures.wakeupsPerSecond.toFixed(1)} ` +
        `wake-ups/s, ${figures.cpuMsPerSecond.toFixed(1)} ms CPU/s\n`,
    );
    process.stdout.write(`${JSON.stringify(figures)}\n`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await fleet.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
