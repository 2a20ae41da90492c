// /metrics as the Rust `prometheus` crate renders it: text format 0.0.4, no prefix,
// families sorted by name, HELP and TYPE for each.
import type { NodeSnapshot } from './status.js';
import { mempoolSize } from './status.js';

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4';
export const BLOCK_TIME_BUCKETS = [0.5, 1, 2, 3, 5, 10, 30, 60] as const;

interface Family {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  lines: string[];
}

/** Rust's f64 Display: integers without a fraction, otherwise the shortest form. */
function num(v: number): string {
  return Number.isFinite(v) ? String(v) : v > 0 ? '+Inf' : v < 0 ? '-Inf' : 'NaN';
}

export function renderMetrics(s: NodeSnapshot): string {
  const produced = Math.max(0, s.height - s.startHeight);
  const blockSecs = s.chain.blockTimeMs / 1000;
  const families: Family[] = [
    { name: 'block_height', help: 'Current block height', type: 'gauge', lines: [`block_height ${s.height}`] },
    {
      name: 'block_time_seconds',
      help: 'Time between consecutive blocks in seconds',
      type: 'histogram',
      // Every block since start took one block time: it falls in each bucket at or above it.
      lines: [
        ...BLOCK_TIME_BUCKETS.map((le) => `block_time_seconds_bucket{le="${le}"} ${blockSecs <= le ? produced : 0}`),
        `block_time_seconds_bucket{le="+Inf"} ${produced}`,
        `block_time_seconds_sum ${num(produced * blockSecs)}`,
        `block_time_seconds_count ${produced}`,
      ],
    },
    { name: 'blocks_total', help: 'Total blocks processed', type: 'counter', lines: [`blocks_total ${produced}`] },
    {
      name: 'mempool_size',
      help: 'Transactions waiting in the mempool',
      type: 'gauge',
      lines: [`mempool_size ${mempoolSize(s)}`],
    },
    { name: 'peers_connected', help: 'Connected peers', type: 'gauge', lines: [`peers_connected ${s.peers}`] },
    {
      name: 'transactions_total',
      help: 'Total transactions processed',
      type: 'counter',
      lines: [`transactions_total ${s.chain.txCount(s.height) - s.chain.txCount(s.startHeight)}`],
    },
  ];
  families.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  let out = '';
  for (const f of families) out += `# HELP ${f.name} ${f.help}\n# TYPE ${f.name} ${f.type}\n${f.lines.join('\n')}\n`;
  return out;
}
