// Every probe as data: how it asks the node, how the answer is parsed, what a success stores on
// the node and a failure clears, and which per-node metrics it feeds. A new probe is a name in
// domain.ts (PROBE_NAMES, ProbeData, RPC_METHODS for an RPC probe) and one entry here; the
// fleet state applies and clears through this table and the prober asks and parses through it.
import { RPC_METHODS, type HealthData, type NodeValues, type ProbeData, type ProbeName } from '../domain.js';
import { DEFAULT_UPSTREAM_BUDGET, parseExposition } from '../exposition/index.js';
import { ProbeError } from './http.js';
import { parseBlockNumber, parseHealth, parseJson, parseMiningStats, parseValidators } from './parse.js';

type DataOf<P extends ProbeName> = Extract<ProbeData, { probe: P }>;

/** A GET of a path under the node's base URL, or a JSON-RPC method called in the node's namespace. */
export type ProbeAsk = { kind: 'get'; path: string; accept: string } | { kind: 'rpc'; method: string };

export interface ParseContext {
  maxUpstreamSeries: number;
}

export interface ProbeDescriptor<P extends ProbeName = ProbeName> {
  request: ProbeAsk;
  /** The answer (body text for a GET, the JSON-RPC result) as the probe's data; throws a ProbeError. */
  parse(answer: unknown, ctx: ParseContext): DataOf<P>;
  /** Stores a success on the node; true when the answer shows a new process (restart, new build). */
  apply(node: NodeValues, data: DataOf<P>, at: number): boolean;
  /** Forgets what the probe provided, after a failure or when the node lacks it. */
  clear(node: NodeValues): void;
  /** The per-node and per-network families this probe's values feed (rendered by metrics/). */
  metrics: readonly string[];
}

const JSON_ACCEPT = 'application/json';

export const PROBES: { [P in ProbeName]: ProbeDescriptor<P> } = {
  health: {
    request: { kind: 'get', path: '/health', accept: JSON_ACCEPT },
    parse: (text) => ({ probe: 'health', value: parseHealth(parseJson(text as string, 'GET /health')) }),
    apply(node, d, at) {
      const restarted = noteProcess(node, d.value, at);
      node.health = d.value;
      return restarted;
    },
    clear: (node) => void (node.health = undefined),
    metrics: ['ledger_node_healthy', 'ledger_node_block_height', 'ledger_node_last_block_age_seconds', 'ledger_node_peers', 'ledger_node_mempool_size', 'ledger_node_uptime_seconds', 'ledger_node_epoch', 'ledger_node_info'],
  },
  metrics: {
    // The classic text format: the Rust crate's dialect, and what the parser reads.
    request: { kind: 'get', path: '/metrics', accept: 'text/plain;version=0.0.4;q=1,*/*;q=0.1' },
    parse(text, ctx) {
      try {
        const parsed = parseExposition(text as string, { budget: { ...DEFAULT_UPSTREAM_BUDGET, maxSeries: ctx.maxUpstreamSeries } });
        return { probe: 'metrics', value: parsed.families, droppedSamples: parsed.droppedSamples };
      } catch (err) {
        throw new ProbeError('invalid_response', `GET /metrics: ${(err as Error).message}`.slice(0, 300));
      }
    },
    apply(node, d) {
      node.upstream = d.value;
      node.upstreamVersion++;
      node.upstreamDropped = d.droppedSamples ?? 0;
      if (node.upstreamDropped > 0) node.upstreamTruncations = (node.upstreamTruncations ?? 0) + 1;
      return false;
    },
    clear(node) {
      node.upstream = undefined;
      node.upstreamVersion++;
    },
    metrics: ['ledger_upstream_*'],
  },
  blockNumber: {
    request: { kind: 'rpc', method: RPC_METHODS.blockNumber },
    parse: (result) => ({ probe: 'blockNumber', value: parseBlockNumber(result) }),
    apply: (node, d) => ((node.blockNumber = d.value), false),
    clear: (node) => void (node.blockNumber = undefined),
    metrics: ['ledger_node_block_height', 'ledger_node_height_lag_blocks', 'ledger_fleet_block_height_max', 'ledger_fleet_block_height_min'],
  },
  miningStats: {
    request: { kind: 'rpc', method: RPC_METHODS.miningStats },
    parse: (result) => ({ probe: 'miningStats', value: parseMiningStats(result) }),
    apply: (node, d) => ((node.mining = d.value), false),
    clear: (node) => void (node.mining = undefined),
    metrics: ['ledger_node_miners_active', 'ledger_mining_miners', 'ledger_mining_miners_active', 'ledger_mining_block_reward_tokens', 'ledger_mining_upgrade_height', 'ledger_mining_upgraded', 'ledger_mining_blocks_until_upgrade'],
  },
  validators: {
    request: { kind: 'rpc', method: RPC_METHODS.validators },
    parse: (result) => ({ probe: 'validators', value: parseValidators(result) }),
    apply: (node, d) => ((node.validators = d.value), false),
    clear: (node) => void (node.validators = undefined),
    metrics: ['ledger_node_validators', 'ledger_validators_active', 'ledger_validators_stake_tokens', 'ledger_validator_stake_tokens', 'ledger_validator_weight', 'ledger_validator_agent_score', 'ledger_fleet_validator_set_mismatch'],
  },
};

/** Applies a success through its probe's descriptor (the union is narrowed by `probe`). */
export function applyProbeData(node: NodeValues, data: ProbeData, at: number): boolean {
  return (PROBES[data.probe] as ProbeDescriptor).apply(node, data as never, at);
}

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
