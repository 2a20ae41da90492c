// How well the daemon keeps its poll schedule while something else happens (a password flood,
// hundreds of HTTP clients): a component that notes when each probe result of a node arrives,
// and loopback HTTP clients with their own source address (127.0.0.x), so per-client limits
// see them as different clients.
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

/** Notes the time of every result of `probe` of every node. */
export function paceRecorder(probe: string): {
  component: DaemonComponent;
  report(from: number, to: number, intervalMs: number): PaceReport;
} {
  const times: number[] = [];
  return {
    component: {
      name: 'pace-recorder',
      onProbeResult: (_t, r) => {
        if (r.probe === probe) times.push(performance.now());
      },
    },
    report(from, to, intervalMs) {
      const inside = times.filter((t) => t >= from && t <= to);
      let worst = 0;
      let last = from;
      for (const t of [...inside, to]) {
        worst = Math.max(worst, t - last);
        last = t;
      }
      return { done: inside.length, expected: Math.floor((to - from) / intervalMs), worstGapMs: Math.round(worst) };
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
