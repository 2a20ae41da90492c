// Process figures read from /proc (Linux): CPU in clock ticks, sockets held, open-files limit.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Clock ticks per second (USER_HZ), 100 on Linux unless getconf says otherwise. */
export const CLK_TCK: number = (() => {
  const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const n = Number(r.stdout?.trim());
  return Number.isInteger(n) && n > 0 ? n : 100;
})();

/** User + system CPU of a process so far, in ms, from /proc/<pid>/stat. */
export function cpuMsFromProc(pid: number | 'self' = 'self'): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after "pid (comm) ": state is field 3, utime field 14, stime field 15.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(rest[11]) + Number(rest[12])) * 1000) / CLK_TCK;
}

/** File descriptors of this process that are sockets (listening ones included). */
export function socketsHeld(): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`).startsWith('socket:')) n++;
    } catch {
      // closed between readdir and readlink
    }
  }
  return n;
}

export function openFilesLimit(): { soft: number; hard: number } {
  const line = readFileSync('/proc/self/limits', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Max open files'));
  const [soft, hard] = (line ?? '').split(/\s{2,}/).slice(1, 3).map((v) => (v === 'unlimited' ? Infinity : Number(v)));
  return { soft: soft ?? NaN, hard: hard ?? NaN };
}

/** RSS sampled every `everyMs` until stopped: peak, and the samples of a marked window. */
export class RssSampler {
  private readonly timer: NodeJS.Timeout;
  peak = 0;
  private window: number[] | undefined;

  constructor(everyMs = 500) {
    this.timer = setInterval(() => this.sample(), everyMs);
    this.sample();
  }

  private sample(): void {
    const rss = process.memoryUsage.rss();
    this.peak = Math.max(this.peak, rss);
    this.window?.push(rss);
  }

  /** Starts collecting the steady-state samples. */
  mark(): void {
    this.window = [];
  }

  /** Median RSS since mark(). */
  steady(): number {
    const w = [...(this.window ?? [])].sort((a, b) => a - b);
    return w[Math.floor(w.length / 2)] ?? process.memoryUsage.rss();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

export function percentile(xs: number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}
