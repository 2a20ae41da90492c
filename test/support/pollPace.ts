// How well the daemon keeps its poll schedule while something else happens (a password flood,
// hundreds of HTTP clients): a component that notes when each probe result of a node arrives,
// and loopback HTTP clients with their own source address (127.0.0.x), so per-client limits
// see them as different clients.
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import type { DaemonComponent } from '../../src/daemon/component.js';

export interface PaceReport {
  /** Results in the window. */
  done: number;
  /** Results the schedule asked for in the window. */
  expected: number;
  /** Longest time between two results (or a window edge and a result), ms. */
  worstGapMs: number;
}

/** Notes when each result of `probe` arrives, per node. */
export function paceRecorder(
  probe: string,
  nodes: number,
): {
  component: DaemonComponent;
  report(from: number, to: number, intervalMs: number): PaceReport;
} {
  const times = new Map<string, number[]>();
  return {
    component: {
      name: 'pace-recorder',
      onProbeResult: (t, r) => {
        if (r.probe !== probe) return;
        const list = times.get(t.name) ?? [];
        list.push(performance.now());
        times.set(t.name, list);
      },
    },
    report(from, to, intervalMs) {
      let done = 0;
      let worst = 0;
      for (const list of times.values()) {
        const inside = list.filter((t) => t >= from && t <= to);
        done += inside.length;
        let last = from;
        for (const t of [...inside, to]) {
          worst = Math.max(worst, t - last);
          last = t;
        }
      }
      const expected = nodes * Math.round((to - from) / intervalMs);
      return { done, expected, worstGapMs: Math.round(worst) };
    },
  };
}

export interface Answer {
  status: number;
  retryAfter?: string;
}

/** One HTTP client from its own loopback address, keeping its connection. */
export function loopbackClient(localAddress: string): {
  get(url: string, headers?: Record<string, string>): Promise<Answer>;
  close(): void;
} {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  return {
    get: (url, headers = {}) =>
      new Promise<Answer>((resolve) => {
        const req = request(url, { agent, localAddress, headers }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] }));
          res.on('error', () => resolve({ status: 0 }));
        });
        req.setTimeout(30_000, () => req.destroy());
        // A refused or cut connection is an answer too (status 0): the load goes on.
        req.on('error', () => resolve({ status: 0 }));
        req.end();
      }),
    close: () => agent.destroy(),
  };
}

/**
 * Runs `clients` loops of `step` until `untilMs` (performance.now()); returns how often each
 * status was seen. `waitOnRefusalMs`: how long a client told 429/503 waits (0: an attacker, who does not).
 */
export async function loadUntil(
  clients: number,
  untilMs: number,
  step: (client: number) => Promise<Answer>,
  waitOnRefusalMs = 0,
): Promise<Map<number, number>> {
  const counts = new Map<number, number>();
  await Promise.all(
    Array.from({ length: clients }, async (_, i) => {
      while (performance.now() < untilMs) {
        const a = await step(i);
        counts.set(a.status, (counts.get(a.status) ?? 0) + 1);
        const refused = a.status === 429 || a.status === 503 || a.status === 0;
        // Yields at least once, so a refusal answered at once cannot spin this loop forever.
        await new Promise((r) => setTimeout(r, refused ? waitOnRefusalMs : 0));
      }
    }),
  );
  return counts;
}

/** The load of `loadInChild`, as a script: one keep-alive connection per client, each from its address. */
const CHILD_LOAD = `
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
const { urls, addresses, ms } = JSON.parse(process.env.LOAD_SPEC);
const until = performance.now() + ms;
const counts = {};
let n = 0;
await Promise.all(addresses.map(async (localAddress) => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  while (performance.now() < until) {
    const status = await new Promise((resolve) => {
      const req = request(urls[n++ % urls.length], { agent, localAddress }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(0));
      });
      req.setTimeout(30000, () => req.destroy());
      req.on('error', () => resolve(0));
      req.end();
    });
    counts[status] = (counts[status] ?? 0) + 1;
    await new Promise((r) => setTimeout(r, 0));
  }
  agent.destroy();
}));
process.stdout.write(JSON.stringify(counts));
`;

/**
 * Runs the load in a child process for `ms` (so the clients' own work does not run on the
 * daemon's event loop): each address one client, asking `urls` in turn without pause. Returns
 * how often each status was seen.
 */
export async function loadInChild(urls: string[], addresses: string[], ms: number): Promise<Map<number, number>> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD_LOAD], {
    env: { ...process.env, LOAD_SPEC: JSON.stringify({ urls, addresses, ms }) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`load child exited ${code}`);
  const counts = JSON.parse(out) as Record<string, number>;
  return new Map(Object.entries(counts).map(([k, v]) => [Number(k), v]));
}
