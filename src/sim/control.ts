// HTTP control API of a running fleet, for tests in other processes and for the demo. Its
// endpoints are declared once, in CONTROL_ENDPOINTS (which `simulate --help` prints); /nodes is
// routed here, /networks/... (the ledger's state and faults) in control-chain.ts.
import { z } from 'zod';
import { chainRoute } from './control-chain.js';
import { TOKEN_SERVICE_ENDPOINTS, tokenServiceRoute } from './control-tokens.js';
import type { ChainControl } from './ledger-control.js';
import { errorReply as error } from './controlBody.js';
import { jsonReply, type Reply } from './reply.js';
import type { SimNode } from './node.js';
import { SIM_FAULTS } from './types.js';

/** The control API's endpoints, as `simulate --help` lists them (a test calls each on a running
 *  simulator, so this list and controlRoute/chainRoute cannot drift apart). */
export const CONTROL_ENDPOINTS: readonly { method: 'GET' | 'POST'; path: string; body?: string; what: string }[] = [
  { method: 'GET', path: '/nodes', what: 'the nodes: name, network, url, fault, height' },
  { method: 'POST', path: '/nodes/<name>/fault', body: '{"fault":"hang"}', what: 'set a fault' },
  { method: 'POST', path: '/nodes/<name>/kill', what: 'stop a node' },
  { method: 'POST', path: '/nodes/<name>/revive', what: 'restart a node' },
  {
    method: 'GET',
    path: '/networks',
    what: 'each network: height, epoch, active set, addresses to watch (one of each kind)',
  },
  { method: 'GET', path: '/networks/<n>/validators/<addr>', what: "a validator's state" },
  { method: 'GET', path: '/networks/<n>/miners/<addr>', what: "a miner's state" },
  { method: 'GET', path: '/networks/<n>/accounts/<addr>', what: "an account's state" },
  { method: 'POST', path: '/networks/<n>/validators/<addr>', body: '{"online":false}', what: 'change a validator' },
  { method: 'POST', path: '/networks/<n>/miners/<addr>', body: '{"checkins":false}', what: 'change a miner' },
  { method: 'POST', path: '/networks/<n>/accounts/<addr>', body: '{"balance":"1000"}', what: 'set a balance' },
  {
    method: 'POST',
    path: '/networks/<n>/accounts/<addr>/unbond',
    body: '{"amount":"1","validator":"<addr>","releaseHeight":123}',
    what: 'add an unbonding',
  },
  { method: 'POST', path: '/networks/<n>/accounts/<addr>/claim', what: 'claim rewards' },
  { method: 'POST', path: '/networks/<n>/rewards', body: '{"funded":false}', what: 'fund or drain rewards' },
  { method: 'GET', path: '/networks/<n>/delegators/<addr>', what: "a delegator's delegations" },
  {
    method: 'POST',
    path: '/networks/<n>/delegators/<addr>',
    body: '{"validator":"<addr>","amount":"0"}',
    what: 'set a delegation (0 undelegates)',
  },
  { method: 'GET', path: '/networks/<n>/agents/<addr>', what: "an agent's identity and score" },
  {
    method: 'POST',
    path: '/networks/<n>/agents/<addr>',
    body: '{"registered":false}',
    what: 'change an agent: registered, dimensions {"activity":1000,...}, decayFactor (basis points)',
  },
  ...TOKEN_SERVICE_ENDPOINTS,
];

/** The endpoints as help text lines. */
export function controlEndpointsHelp(): string {
  return CONTROL_ENDPOINTS.map(
    (e) => `  ${e.method.padEnd(5)}${e.path}${e.body ? ` ${e.body}` : ''}\n        ${e.what}\n`,
  ).join('');
}

export interface ControlTarget {
  readonly nodes: readonly SimNode[];
  find(name: string): SimNode | undefined;
  readonly networks: ReadonlyMap<string, ChainControl>;
}

const faultBody = z.object({ fault: z.enum(SIM_FAULTS) });

export function describeNode(n: SimNode): Record<string, unknown> {
  return {
    name: n.name,
    network: n.network,
    url: n.url,
    build: n.build,
    namespace: n.namespace,
    version: n.version,
    fault: n.fault(),
    height: n.height(),
    requests: n.requestCount(),
    inFlight: n.gate.inFlight,
    peakInFlight: n.gate.peakInFlight,
  };
}

export async function controlRoute(target: ControlTarget, method: string, path: string, body: string): Promise<Reply> {
  const parts = path.split('?')[0]!.split('/').filter(Boolean);
  if (parts[0] === 'networks') {
    try {
      const rest = parts.slice(1).map(decodeURIComponent);
      return tokenServiceRoute(target.networks, method, rest, body) ?? chainRoute(target.networks, method, rest, body);
    } catch {
      return error(400, 'bad path');
    }
  }
  if (parts[0] !== 'nodes' || parts.length === 2 || parts.length > 3) return error(404, 'not found');
  if (parts.length === 1) {
    if (method !== 'GET') return error(405, 'method not allowed');
    return jsonReply({ nodes: target.nodes.map(describeNode) });
  }
  let name: string;
  try {
    name = decodeURIComponent(parts[1]!);
  } catch {
    return error(400, 'bad node name');
  }
  const node = target.find(name);
  if (!node) return error(404, `unknown node: ${name}`);
  const action = parts[2]!;
  if (!['fault', 'kill', 'revive'].includes(action)) return error(404, 'not found');
  if (method !== 'POST') return error(405, 'method not allowed');
  if (action === 'kill') await node.kill();
  else if (action === 'revive') await node.revive();
  else {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      return error(400, 'body must be JSON: {"fault":"<fault>"}');
    }
    const parsed = faultBody.safeParse(json);
    if (!parsed.success) return error(400, `fault must be one of: ${SIM_FAULTS.join(', ')}`);
    const f = parsed.data.fault;
    if (f === 'down') await node.kill();
    else {
      node.setFault(f);
      await node.revive(); // leaving `down`: answer once the node listens again
    }
  }
  return jsonReply(describeNode(node));
}
