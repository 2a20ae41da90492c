// The floor: the cheapest Node.js program doing the exporter's requests and parsing. Per
// node-poll, the same requests (undici's dispatch API, no streams) on the node's one keep-alive
// socket, one after another: GET /health (JSON.parse), GET /metrics (read as text), and the
// JSON-RPC methods the node's build offers (JSON.parse). Node-polls run back to back with a bounded number in flight;
// CPU from /proc ticks. Paced variants (on the exporter's schedule, and one burst per interval) can be printed beside
// it.
import { Agent } from 'undici';
import { nodeProbes } from '../src/probes/registry.js';
import { tickPhase } from '../src/schedule/scheduler.js';
import { methodsOf } from '../src/sim/index.js';
import type { FleetNode } from './fleet.js';
import { countConnections } from './fleet.js';
import { cpuSplitFromProc, socketsHeld, WARM_POLLS } from './proc.js';

export interface FloorResult {
  polls: number;
  cpuPerPollMs: number;
  /** Share of that CPU spent in the kernel (on loopback, sending also delivers to the simulator). */
  sysShare: number;
  wallMs: number;
  connectsDuringMeasure: number;
  sockets: number;
  rss: number;
}

/** Two runs of the floor as one: their CPU over their node-polls. */
export function bothFloors(a: FloorResult, b: FloorResult): FloorResult {
  const cpuA = a.cpuPerPollMs * a.polls;
  const cpuB = b.cpuPerPollMs * b.polls;
  const polls = a.polls + b.polls;
  return {
    polls,
    cpuPerPollMs: (cpuA + cpuB) / polls,
    sysShare: (a.sysShare * cpuA + b.sysShare * cpuB) / (cpuA + cpuB),
    wallMs: a.wallMs + b.wallMs,
    connectsDuringMeasure: a.connectsDuringMeasure + b.connectsDuringMeasure,
    sockets: Math.max(a.sockets, b.sockets),
    rss: Math.max(a.rss, b.rss),
  };
}

const RPC_PROBES: string[] = nodeProbes().flatMap((p) => (p.request.kind === 'rpc' ? [p.request.method] : []));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One request through undici's dispatch API, the body collected from the handler callbacks: the
 * cheapest way undici offers (request() wraps each answer in a stream: ~0.2 ms more per
 * node-poll), and the way the exporter's client sends, so the floor stays below it.
 */
function send(agent: Agent, origin: string, path: string, method: 'GET' | 'POST', body?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const headers = body === undefined ? undefined : { 'content-type': 'application/json' };
    agent.dispatch(
      { origin, path, method, headers, body },
      {
        // (its presence selects undici's handler API that the other callbacks belong to)
        onRequestStart: () => undefined,
        onResponseData: (_c, chunk) => {
          chunks.push(chunk);
          size += chunk.length;
        },
        onResponseEnd: () => resolve(Buffer.concat(chunks, size).toString('utf8')),
        onResponseError: (_c, err) => reject(err),
      },
    );
  });
}

function nodePoller(agent: Agent) {
  let id = 0;
  const where = new Map<FleetNode, { origin: string; base: string; methods: string[] }>();
  return async (node: FleetNode): Promise<void> => {
    let w = where.get(node);
    if (!w) {
      const u = new URL(node.url);
      w = {
        origin: u.origin,
        base: u.pathname.replace(/\/+$/, ''),
        methods: RPC_PROBES.filter((x) => methodsOf(node.build).includes(x)),
      };
      where.set(node, w);
    }
    JSON.parse(await send(agent, w.origin, `${w.base}/health`, 'GET'));
    await send(agent, w.origin, `${w.base}/metrics`, 'GET');
    for (const method of w.methods) {
      const body = JSON.stringify({ jsonrpc: '2.0', id: ++id, method: `${node.namespace}_${method}`, params: [] });
      JSON.parse(await send(agent, w.origin, `${w.base}/`, 'POST', body));
    }
  };
}

/**
 * Polls the nodes in turn, at most `inFlight` node-polls at once, until `polls` node-polls were
 * started and, when `untilMs` is given, that time (performance.now()) has passed.
 */
async function backToBack(
  poll: (n: FleetNode) => Promise<void>,
  nodes: FleetNode[],
  inFlight: number,
  polls: number,
  untilMs = 0,
): Promise<number> {
  let next = 0;
  const more = () => next < polls || performance.now() < untilMs;
  const worker = async () => {
    while (more()) await poll(nodes[next++ % nodes.length]!);
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, Math.max(polls, 1)) }, worker));
  return next;
}

/**
 * The floor on the exporter's schedule: each node at its own phase (src/schedule/scheduler.ts),
 * a slot's nodes started together by one timer. What pacing itself costs (waking for each slot,
 * fewer requests per wake than back to back) shows as this loop's excess over the back-to-back one.
 */
async function paced(
  poll: (n: FleetNode) => Promise<void>,
  nodes: FleetNode[],
  rounds: number,
  intervalMs: number,
): Promise<number> {
  const slots = new Map<number, FleetNode[]>();
  for (const n of nodes) {
    const phase = tickPhase(n.name, intervalMs);
    (slots.get(phase) ?? slots.set(phase, []).get(phase)!).push(n);
  }
  const phases = [...slots.keys()].sort((a, b) => a - b);
  const pending: Promise<void>[] = [];
  const start = Date.now();
  for (let r = 0; r < rounds; r++) {
    for (const phase of phases) {
      const wait = start + r * intervalMs + phase - Date.now();
      if (wait > 0) await sleep(wait);
      for (const n of slots.get(phase)!) pending.push(poll(n));
    }
  }
  await Promise.all(pending);
  return nodes.length * rounds;
}

/**
 * The floor as one burst per interval: every node back to back (at most `inFlight` at once), then
 * idle until the next interval. No program polling on that interval can wake less often; what this
 * loop costs beyond the back-to-back one is what being idle between polls costs on the machine.
 * Measured over whole intervals, so the idle time after the last burst counts too.
 */
async function burst(
  poll: (n: FleetNode) => Promise<void>,
  nodes: FleetNode[],
  inFlight: number,
  rounds: number,
  intervalMs: number,
): Promise<number> {
  const start = Date.now();
  for (let r = 0; r < rounds; r++) {
    const wait = start + r * intervalMs - Date.now();
    if (wait > 0) await sleep(wait);
    await backToBack(poll, nodes, inFlight, nodes.length);
  }
  const rest = start + rounds * intervalMs - Date.now();
  if (rest > 0) await sleep(rest);
  return nodes.length * rounds;
}

/** How the floor is paced: back to back, on the exporter's schedule (slots), or one burst per interval. */
export type FloorPacing = { kind: 'back-to-back' } | { kind: 'slots' | 'burst'; intervalMs: number };

export async function runFloor(
  nodes: FleetNode[],
  opts: { rounds: number; minMs: number; inFlight: number; pacing: FloorPacing },
): Promise<FloorResult> {
  // One socket per origin, reused: the shape the exporter aims for.
  const agent = new Agent({ connections: 1, pipelining: 1, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 600_000 });
  const poll = nodePoller(agent);
  const conns = countConnections();
  try {
    // Warm-up: sockets open, JIT done.
    await backToBack(poll, nodes, opts.inFlight, Math.max(nodes.length, WARM_POLLS));
    conns.reset();
    const cpu0 = cpuSplitFromProc();
    const t0 = performance.now();
    const p = opts.pacing;
    const polls =
      p.kind === 'back-to-back'
        ? await backToBack(poll, nodes, opts.inFlight, nodes.length * opts.rounds, t0 + opts.minMs)
        : p.kind === 'slots'
          ? await paced(poll, nodes, opts.rounds, p.intervalMs)
          : await burst(poll, nodes, opts.inFlight, opts.rounds, p.intervalMs);
    const cpu = cpuSplitFromProc();
    const sysMs = cpu.sysMs - cpu0.sysMs;
    const wallMs = performance.now() - t0;
    const cpuMs = cpu.userMs - cpu0.userMs + sysMs;
    return {
      polls,
      cpuPerPollMs: cpuMs / polls,
      sysShare: sysMs / cpuMs,
      wallMs,
      connectsDuringMeasure: conns.count(),
      sockets: socketsHeld(),
      rss: process.memoryUsage.rss(),
    };
  } finally {
    conns.stop();
    await agent.close();
  }
}
