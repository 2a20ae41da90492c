// A node as claw-node 0.5.x answers the watch's methods (reference-node-facts.md), for tests
// that need answers the simulator does not give: u128 JSON numbers, garbage for one address, a
// node that fails the watch's calls. It records every call and the most calls it held at once.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startRawServer, type RawServer } from '../../support/rawServers.js';

export interface WatchChain {
  chainId: string;
  height: number;
  epoch: number;
  validators: Array<{ address: string; stake: string; weight: number; agentScore: number }>;
  /** getValidatorDetail results as JSON text by address; absent: null. */
  details: Record<string, string>;
  /** getBlockRewards results as JSON text by height; absent: null. */
  rewards: Record<number, string>;
  /** getMinerInfo results as raw JSON text (u128 numbers as written) by address; absent: null. */
  miners: Record<string, string>;
  balances: Record<string, string>;
  unbonding: Record<string, string>;
  /** Addresses every per-address method answers garbage for. */
  garbage: Set<string>;
}

export interface WatchNode extends RawServer {
  calls: Array<{ method: string; params: unknown[] }>;
  maxInFlight: number;
  /** Watch methods answer HTTP 503 while set. */
  failWatch: boolean;
}

const WATCH = new Set([
  'getValidators',
  'getBlockRewards',
  'getValidatorDetail',
  'getMinerInfo',
  'getBalance',
  'getUnbonding',
]);

export async function startWatchNode(chain: WatchChain, delayMs = 20): Promise<WatchNode> {
  let inFlight = 0;
  const node = (await startRawServer(() => undefined)) as WatchNode;
  node.calls = [];
  node.maxInFlight = 0;
  node.failWatch = false;
  node.handler = (req: IncomingMessage, res: ServerResponse, body: string) => {
    if (req.url === '/health')
      return reply(
        res,
        JSON.stringify({
          status: 'ok',
          version: '0.5.8',
          chain_id: chain.chainId,
          height: chain.height,
          epoch: chain.epoch,
          peer_count: 3,
        }),
      );
    let rpc: { id: unknown; method: string; params?: unknown[] };
    try {
      rpc = JSON.parse(body) as typeof rpc;
    } catch {
      return reply(res, 'no', 400);
    }
    const method = rpc.method.replace(/^claw_/, '');
    const params = rpc.params ?? [];
    if (WATCH.has(method)) node.calls.push({ method, params });
    inFlight++;
    node.maxInFlight = Math.max(node.maxInFlight, inFlight);
    setTimeout(
      () => {
        inFlight--;
        if (WATCH.has(method) && node.failWatch) return reply(res, '<html>bad gateway</html>', 503);
        const result = resultOf(chain, method, params);
        if (result === undefined)
          return reply(
            res,
            JSON.stringify({
              jsonrpc: '2.0',
              id: rpc.id,
              error: { code: -32000, message: `method not found: ${rpc.method}` },
            }),
          );
        reply(res, `{"jsonrpc":"2.0","id":${JSON.stringify(rpc.id)},"result":${result}}`);
      },
      WATCH.has(method) ? delayMs : 0,
    );
  };
  return node;
}

function reply(res: ServerResponse, text: string, status = 200): void {
  res.writeHead(status, { 'content-type': status === 200 ? 'application/json' : 'text/html' }).end(text);
}

/** The result as JSON text; undefined: method not found. */
function resultOf(chain: WatchChain, method: string, params: unknown[]): string | undefined {
  const a = String(params[0]);
  const perAddress = ['getValidatorDetail', 'getMinerInfo', 'getBalance', 'getUnbonding'].includes(method);
  if (perAddress && chain.garbage.has(a)) return '{"garbage":[1,2,3]}';
  switch (method) {
    case 'blockNumber':
      return String(chain.height);
    case 'getValidators':
      return JSON.stringify(chain.validators);
    case 'getBlockRewards':
      return chain.rewards[Number(params[0])] ?? 'null';
    case 'getValidatorDetail':
      return chain.details[a] ?? 'null';
    case 'getMinerInfo':
      return chain.miners[a] ?? 'null';
    case 'getBalance':
      return chain.balances[a] ?? '"0"';
    case 'getUnbonding':
      return chain.unbonding[a] ?? '[]';
    default:
      return undefined;
  }
}

/** getMinerInfo's serde form, with pending_rewards written as a bare JSON number. */
export function minerInfoText(
  address: string,
  m: {
    active: boolean;
    pendingRewards: string;
    attendance: number;
    misses: number;
    lastCheckin: number;
    reputationBps: number;
  },
): string {
  const bytes = Array.from({ length: 32 }, (_, i) => parseInt(address.slice(2 * i, 2 * i + 2), 16));
  return (
    `{"address":${JSON.stringify(bytes)},"tier":"Online","name":"rig","registered_at":5,"last_heartbeat":90,` +
    `"ip_prefix":[10,0,0],"active":${m.active},"reputation_bps":${m.reputationBps},` +
    `"pending_rewards":${m.pendingRewards},"pending_epoch":9,` +
    `"epoch_attendance":${m.attendance},"consecutive_misses":${m.misses},"last_checkin_epoch":${m.lastCheckin}}`
  );
}
