// A fleet of minimal ledger nodes, one port each, where every tenth node misbehaves in one of
// the ways of issue 15. Run as its own process (`node hostileFleet.js <count> <hostile:0|1>`):
// prints one JSON line with the nodes, then serves until killed.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const HOSTILE_KINDS = [
  'help-churn',
  'flood',
  'empty-families',
  'clash',
  'echo',
  'validators',
  'server-error',
] as const;
export type HostileKind = (typeof HOSTILE_KINDS)[number];

export interface BenchNode {
  name: string;
  url: string;
  network: string;
  kind: HostileKind | 'healthy';
}

const HEALTHY_METRICS =
  '# HELP block_height Current block height\n# TYPE block_height gauge\nblock_height 4242\n' +
  '# HELP blocks_total Blocks\n# TYPE blocks_total counter\nblocks_total 4242\n' +
  '# TYPE block_time_seconds histogram\n' +
  ['0.5', '1', '2', '5', '+Inf'].map((le, i) => `block_time_seconds_bucket{le="${le}"} ${i * 10}`).join('\n') +
  '\nblock_time_seconds_sum 120\nblock_time_seconds_count 40\n';
const FLOOD = Array.from({ length: 200_000 }, (_, i) => `flood{i="${i}"} 1`).join('\n') + '\n';
const EMPTY =
  Array.from({ length: 50_000 }, (_, i) => `# HELP e${i} only headers\n# TYPE e${i} gauge`).join('\n') + '\n';
const VALIDATORS = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    address: i.toString(16).padStart(64, '0'),
    stake: '1000000000',
    weight: 1,
    agentScore: 1,
  }));
const MANY_VALIDATORS = JSON.stringify(VALIDATORS(100_000));
const FEW_VALIDATORS = JSON.stringify(VALIDATORS(4));

let churn = 0;
function metricsFor(kind: BenchNode['kind'], req: http.IncomingMessage): string {
  switch (kind) {
    case 'help-churn':
      return `# HELP churn ${String(++churn).padEnd(1_000_000, 'h')}\n# TYPE churn gauge\nchurn 1\n`;
    case 'flood':
      return FLOOD;
    case 'empty-families':
      return EMPTY;
    case 'clash':
      return (
        '# TYPE block_time_seconds_count gauge\nblock_time_seconds_count 5\n# TYPE block_height_total counter\n' +
        'block_height_total 1\n'
      );
    case 'echo':
      return `echo{key="${String(req.headers['x-api-key'])}"} 1\n` + HEALTHY_METRICS;
    default:
      return HEALTHY_METRICS;
  }
}

function handler(kind: BenchNode['kind']): http.RequestListener {
  return (req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      if (body.length < 4096) body += c.toString('utf8');
    });
    req.on('end', () => {
      if (kind === 'server-error') {
        res.writeHead(503, { 'content-type': 'text/plain' }).end('upstream unavailable '.repeat(200));
        return;
      }
      if (req.method === 'GET' && req.url === '/health') {
        const h = {
          status: 'ok',
          version: '0.5.8',
          chain_id: 'bench',
          height: 4242,
          epoch: 1,
          peer_count: 8,
          mempool_size: 0,
          last_block_age_secs: 1,
          uptime_secs: 3600,
        };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(h));
        return;
      }
      if (req.method === 'GET' && req.url === '/metrics') {
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(metricsFor(kind, req));
        return;
      }
      let method = '';
      let id: unknown = null;
      try {
        ({ method, id } = JSON.parse(body) as { method: string; id: unknown });
      } catch {
        /* answered as unknown below */
      }
      const result =
        method === 'claw_blockNumber'
          ? '4242'
          : method === 'claw_getValidators'
            ? kind === 'validators'
              ? MANY_VALIDATORS
              : FEW_VALIDATORS
            : method === 'claw_getMiningStats'
              ? JSON.stringify({
                  totalMiners: 3,
                  activeMiners: 2,
                  currentBlockReward: '1000',
                  miningUpgradeHeight: 9000,
                  upgraded: false,
                })
              : undefined;
      const text =
        result === undefined
          ? JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } })
          : `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`;
      res.writeHead(200, { 'content-type': 'application/json' }).end(text);
    });
  };
}

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 100);
  const hostile = process.argv[3] === '1';
  const nodes: BenchNode[] = [];
  for (let i = 0; i < count; i++) {
    const kind = hostile && i % 10 === 9 ? HOSTILE_KINDS[Math.floor(i / 10) % HOSTILE_KINDS.length]! : 'healthy';
    const server = http.createServer(handler(kind));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    nodes.push({
      name: `n${i}`,
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      network: 'bench',
      kind,
    });
  }
  console.log(JSON.stringify(nodes));
}

void main();
