// Process figures read from /proc (Linux): CPU in clock ticks, sockets held, open-files limit.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Node-polls the exporter and the floor make before measuring: V8 is done optimising their hot paths by then. */
export const WARM_POLLS = 4_000;

/** Clock ticks per second (USER_HZ), 100 on Linux unless getconf says otherwise. */
export const CLK_TCK: number = (() => {
  const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const n = Number(r.stdout?.trim());
  return Number.isInteger(n) && n > 0 ? n : 100;
})();

/** CPU of a process so far, in ms, from /proc/<pid>/stat: in our code and in the kernel for it. */
export function cpuSplitFromProc(pid: number | 'self' = 'self'): { userMs: number; sysMs: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after "pid (comm) ": state is field 3, utime field 14, stime field 15.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { userMs: (Number(rest[11]) * 1000) / CLK_TCK, sysMs: (Number(rest[12]) * 1000) / CLK_TCK };
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
  const [soft, hard] = (line ?? '')
    .split(/\s{2,}/)
    .slice(1, 3)
    .map((v) => (v === 'unlimited' ? Infinity : Number(v)));
  return { soft: soft ?? NaN, hard: hard ?? NaN };
}

/** The memory figures beside RSS that explain it (bytes, from process.memoryUsage()). */
export interface MemoryFigures {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  /** Memory outside the V8 heap that JS objects hold (Buffers, WASM memory, ...). */
  external: number;
  arrayBuffers: number;
}

const FIELDS = ['rss', 'heapUsed', 'heapTotal', 'external', 'arrayBuffers'] as const;

/** Memory sampled every `everyMs` until stopped: peak RSS, and the samples of a marked window. */
export class RssSampler {
  private readonly timer: NodeJS.Timeout;
  peak = 0;
  private window: MemoryFigures[] | undefined;

  constructor(everyMs = 500) {
    this.timer = setInterval(() => this.sample(), everyMs);
    this.sample();
  }

  private sample(): void {
    const m = process.memoryUsage();
    this.peak = Math.max(this.peak, m.rss);
    this.window?.push(m);
  }

  /** Starts collecting the steady-state samples. */
  mark(): void {
    this.window = [];
  }

  /** Median RSS since mark(). */
  steady(): number {
    return this.steadyFigures().rss;
  }

  /** Median of each figure since mark() (each its own median, so they need not add up). */
  steadyFigures(): MemoryFigures {
    const w = this.window?.length ? this.window : [process.memoryUsage()];
    const out = {} as MemoryFigures;
    for (const k of FIELDS)
      out[k] = percentile(
        w.map((m) => m[k]),
        0.5,
      );
    return out;
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
