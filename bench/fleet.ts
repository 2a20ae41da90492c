// The simulated fleet for the benchmark: `simulate` child processes, each holding its share of
// nodes (port-per-node: one listening socket per node plus the accepted ones, so 10,000 nodes
// are split to stay under a per-process open-files cap).
import { spawn, type ChildProcess } from 'node:child_process';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { SimBuild } from '../src/sim/index.js';
import { endsWithBench } from './children.js';

export interface FleetNode {
  name: string;
  network: string;
  url: string;
  namespace: string;
  build: SimBuild;
  /** The name the simulator knows the node by, and its process's control API. */
  simName: string;
  control?: string;
}

export type Layout = 'port-per-node' | 'shared-port';

export interface RunningFleet {
  nodes: FleetNode[];
  processes: ChildProcess[];
  close(): Promise<void>;
}

// The built CLI (npm run bench builds it first).
const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/** axum (hyper) keeps idle connections open; the simulator's default (Node's 5 s) would not. */
const NODE_KEEP_ALIVE_MS = 300_000;

export async function startFleet(
  count: number,
  opts: { layout: Layout; perProcess: number; control?: boolean },
): Promise<RunningFleet> {
  const processes: ChildProcess[] = [];
  const close = async () => {
    await Promise.all(
      processes.map(
        (p) =>
          new Promise<void>((resolve) => {
            if (p.exitCode !== null || p.signalCode !== null) return resolve();
            p.once('exit', () => resolve());
            p.kill('SIGTERM');
          }),
      ),
    );
  };
  try {
    const shares: number[] = [];
    for (let left = count; left > 0; left -= opts.perProcess) shares.push(Math.min(left, opts.perProcess));
    const parts = await Promise.all(
      shares.map((n, k) => {
        const child = endsWithBench(
          spawn(
            process.execPath,
            [
              cli,
              'simulate',
              '--nodes',
              String(n),
              '--layout',
              opts.layout,
              '--networks',
              'mainnet,testnet',
              '--block-time-ms',
              '3000',
              '--keep-alive-ms',
              String(NODE_KEEP_ALIVE_MS),
              ...(opts.control ? ['--control-port', '0'] : []),
            ],
            { stdio: ['ignore', 'pipe', 'inherit'] },
          ),
        );
        processes.push(child);
        return readNodes(child, n, shares.length > 1 ? `s${k + 1}-` : '');
      }),
    );
    return { nodes: parts.flat(), processes, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Reads the simulator's node lines; names get a per-process prefix so they stay unique. */
async function readNodes(child: ChildProcess, expected: number, prefix: string): Promise<FleetNode[]> {
  const out: FleetNode[] = [];
  let control: string | undefined;
  const deadline = setTimeout(() => child.kill('SIGKILL'), 180_000);
  try {
    for await (const line of createInterface({ input: child.stdout! })) {
      const msg = JSON.parse(line) as Record<string, unknown>;
      if (msg.event === 'node') {
        const n = msg as unknown as FleetNode;
        out.push({
          name: prefix + n.name,
          simName: n.name,
          network: n.network,
          url: n.url,
          namespace: n.namespace,
          build: n.build,
        });
      }
      if (msg.event === 'control' && typeof msg.url === 'string') control = msg.url;
      if (msg.event === 'ready') break;
    }
  } finally {
    clearTimeout(deadline);
  }
  if (out.length !== expected) throw new Error(`simulator announced ${out.length} nodes, expected ${expected}`);
  return control === undefined ? out : out.map((n) => ({ ...n, control }));
}

/** Counts TCP connections undici opens in this process (the bench's scrapes come from another). */
export function countConnections(): { count: () => number; reset: () => void; stop: () => void } {
  let n = 0;
  const onConnect = () => void n++;
  subscribe('undici:client:connected', onConnect);
  return {
    count: () => n,
    reset: () => void (n = 0),
    stop: () => void unsubscribe('undici:client:connected', onConnect),
  };
}
