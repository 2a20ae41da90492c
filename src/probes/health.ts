// GET /health: status, identity (version, chain id, genesis) and the node's own figures. A new
// version or an earlier start time means a new process behind the URL (restart, upgrade).
import type { HealthData, NodeValues } from '../domain.js';
import { parseHealth, parseJson } from './parse.js';
import type { NodeProbe } from './types.js';

export type HealthProbeData = { probe: 'health'; value: HealthData };

export const healthProbe: NodeProbe<HealthProbeData> = {
  target: 'node',
  request: { kind: 'get', path: '/health', accept: 'application/json' },
  parse: (text) => ({ probe: 'health', value: parseHealth(parseJson(text as string, 'GET /health')) }),
  apply(node, d, at) {
    const restarted = noteProcess(node, d.value, at);
    node.health = d.value;
    return restarted;
  },
  clear: (node) => void (node.health = undefined),
  metrics: [
    {
      per: 'node',
      name: 'ledger_node_healthy',
      help: 'Whether /health reported status "ok" (1) or anything else (0).',
      value: (v) => (v.health?.status === undefined ? undefined : v.health.status === 'ok' ? 1 : 0),
    },
    {
      per: 'node',
      name: 'ledger_node_last_block_age_seconds',
      help: 'Age of the last block the node has, from /health.',
      value: (v) => v.health?.lastBlockAgeSecs,
    },
    {
      per: 'node',
      name: 'ledger_node_peers',
      help: 'Connected peers, from /health.',
      value: (v) => v.health?.peerCount,
    },
    {
      per: 'node',
      name: 'ledger_node_mempool_size',
      help: 'Transactions in the mempool, from /health.',
      value: (v) => v.health?.mempoolSize,
    },
    {
      per: 'node',
      name: 'ledger_node_uptime_seconds',
      help: 'Node process uptime, from /health.',
      value: (v) => v.health?.uptimeSecs,
    },
    { per: 'node', name: 'ledger_node_epoch', help: 'Current epoch, from /health.', value: (v) => v.health?.epoch },
  ],
};

/** Start times that differ by less than this are the same process (clock and poll skew). */
const RESTART_SLACK_MS = 10_000;

/** Records the node's version and start time; true when they show a new process (restart, new build). */
function noteProcess(node: NodeValues, h: HealthData, now: number): boolean {
  const startedAt = h.uptimeSecs === undefined ? undefined : now - h.uptimeSecs * 1000;
  const before = node.process;
  node.process = { version: h.version, startedAt };
  if (!before) return false;
  if (before.version !== undefined && h.version !== undefined && before.version !== h.version) return true;
  return before.startedAt !== undefined && startedAt !== undefined && startedAt - before.startedAt > RESTART_SLACK_MS;
}
