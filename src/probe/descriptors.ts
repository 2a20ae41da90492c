// Every probe as data: how it asks the node, how the answer is parsed, what a success stores on
// the node and a failure clears, and the metric families its values feed. A new probe is its
// types in domain.ts (name, data, the field it stores) and one entry here: the prober asks and
// parses, the fleet state applies and clears, and the /metrics view renders through this table.
import {
  RPC_METHODS,
  type HealthData,
  type NetworkView,
  type NodeValues,
  type NodeView,
  type ProbeData,
  type ProbeName,
  type ValidatorInfo,
  type ValidatorView,
} from '../domain.js';
import { UpstreamReader } from '../exposition/index.js';
import type { NodeBudget } from './budget.js';
import { ProbeError } from './http.js';
import { parseBlockNumber, parseHealth, parseJson, parseMiningStats, parseValidators, sameMiningStats, sameValidators } from './parse.js';
import { sharedValidators } from './validatorLists.js';

type DataOf<P extends ProbeName> = Extract<ProbeData, { probe: P }>;

/** A GET of a path under the node's base URL, or a JSON-RPC method called in the node's namespace. */
export type ProbeAsk = { kind: 'get'; path: string; accept: string } | { kind: 'rpc'; method: string };

export interface ParseContext {
  /** What the node may make the exporter hold (polling settings, defaults filled in). */
  budget: NodeBudget;
}

/**
 * A gauge family a probe's values feed, one sample per node (labels node, network), per network
 * (network) or per active validator of a network (network, validator). No value, no sample.
 */
export type ProbeFamily = { name: string; help: string } & (
  | { per: 'node'; value(values: Readonly<NodeValues>, node: NodeView): number | undefined }
  | { per: 'network'; value(network: NetworkView): number | undefined }
  | { per: 'validator'; value(validator: ValidatorView): number | undefined }
);

export interface ProbeDescriptor<D extends { probe: string } = ProbeData> {
  request: ProbeAsk;
  /** The answer (body text for a GET, the JSON-RPC result) as the probe's data; throws a ProbeError. */
  parse(answer: unknown, ctx: ParseContext): D;
  /** Stores a success on the node; true when the answer shows a new process (restart, new build). */
  apply(node: NodeValues, data: D, at: number): boolean;
  /** Forgets what the probe provided, after a failure or when the node lacks it. */
  clear(node: NodeValues): void;
  /**
   * The families only this probe feeds, rendered by metrics/fleetText.ts. Height, liveness, identity
   * and the per-probe families come from several probes and are rendered there.
   */
  metrics: readonly ProbeFamily[];
}

const JSON_ACCEPT = 'application/json';

/**
 * Each node's /metrics reader, by its prober's parse context (one per prober, for its life): it
 * keeps the shape of the node's last answer, so an answer that differs only in values is not
 * parsed again.
 */
const readers = new WeakMap<ParseContext, UpstreamReader>();

/**
 * Each node's last validator list, by its prober's parse context: the next answer is read against
 * it (see parseValidators), which is cheaper while the set stays the same, as it nearly always does.
 */
const lastValidators = new WeakMap<ParseContext, ValidatorInfo[]>();

export const PROBES: { [P in ProbeName]: ProbeDescriptor<DataOf<P>> } = {
  health: {
    request: { kind: 'get', path: '/health', accept: JSON_ACCEPT },
    parse: (text) => ({ probe: 'health', value: parseHealth(parseJson(text as string, 'GET /health')) }),
    apply(node, d, at) {
      const restarted = noteProcess(node, d.value, at);
      node.health = d.value;
      return restarted;
    },
    clear: (node) => void (node.health = undefined),
    metrics: [
      { per: 'node', name: 'ledger_node_healthy', help: 'Whether /health reported status "ok" (1) or anything else (0).', value: (v) => (v.health?.status === undefined ? undefined : v.health.status === 'ok' ? 1 : 0) },
      { per: 'node', name: 'ledger_node_last_block_age_seconds', help: 'Age of the last block the node has, from /health.', value: (v) => v.health?.lastBlockAgeSecs },
      { per: 'node', name: 'ledger_node_peers', help: 'Connected peers, from /health.', value: (v) => v.health?.peerCount },
      { per: 'node', name: 'ledger_node_mempool_size', help: 'Transactions in the mempool, from /health.', value: (v) => v.health?.mempoolSize },
      { per: 'node', name: 'ledger_node_uptime_seconds', help: 'Node process uptime, from /health.', value: (v) => v.health?.uptimeSecs },
      { per: 'node', name: 'ledger_node_epoch', help: 'Current epoch, from /health.', value: (v) => v.health?.epoch },
    ],
  },
  metrics: {
    // The classic text format: the Rust crate's dialect, and what the parser reads.
    request: { kind: 'get', path: '/metrics', accept: 'text/plain;version=0.0.4;q=1,*/*;q=0.1' },
    parse(text, ctx) {
      let reader = readers.get(ctx);
      if (!reader) readers.set(ctx, (reader = new UpstreamReader(ctx.budget.upstream)));
      try {
        const read = reader.read(text as string);
        return { probe: 'metrics', value: read, droppedSamples: read.droppedSamples };
      } catch (err) {
        throw new ProbeError('invalid_response', `GET /metrics: ${(err as Error).message}`.slice(0, 300));
      }
    },
    apply(node, d) {
      const { value } = d;
      node.upstream = Array.isArray(value)
        ? { families: value, prepared: undefined }
        : { families: value.families, samples: value.samples, shape: value.shape, values: value.values, prepared: undefined };
      node.upstreamVersion++;
      node.upstreamDropped = d.droppedSamples ?? 0;
      if (node.upstreamDropped > 0) node.upstreamTruncations = (node.upstreamTruncations ?? 0) + 1;
      return false;
    },
    clear(node) {
      node.upstream = undefined;
      node.upstreamVersion++;
    },
    // The answer is re-exposed as ledger_upstream_* by exposition/ (names and labels are the node's).
    metrics: [],
  },
  blockNumber: {
    request: { kind: 'rpc', method: RPC_METHODS.blockNumber },
    parse: (result) => ({ probe: 'blockNumber', value: parseBlockNumber(result) }),
    apply: (node, d) => ((node.blockNumber = d.value), false),
    clear: (node) => void (node.blockNumber = undefined),
    // Height (with /health's) feeds the shared height families.
    metrics: [],
  },
  miningStats: {
    request: { kind: 'rpc', method: RPC_METHODS.miningStats },
    parse: (result) => ({ probe: 'miningStats', value: parseMiningStats(result) }),
    apply: (node, d) => (sameMiningStats(node.mining, d.value) || (node.mining = d.value), false),
    clear: (node) => void (node.mining = undefined),
    metrics: [
      { per: 'node', name: 'ledger_node_miners_active', help: 'Active miners this node reports.', value: (v) => v.mining?.activeMiners },
      { per: 'network', name: 'ledger_mining_miners', help: 'Registered miners.', value: (n) => n.mining?.miners },
      { per: 'network', name: 'ledger_mining_miners_active', help: 'Active miners.', value: (n) => n.mining?.active },
      { per: 'network', name: 'ledger_mining_block_reward_tokens', help: 'Current block reward, in tokens.', value: (n) => n.mining?.rewardTokens },
      { per: 'network', name: 'ledger_mining_upgrade_height', help: 'Block height of the mining upgrade.', value: (n) => n.mining?.upgradeHeight },
      { per: 'network', name: 'ledger_mining_upgraded', help: 'Whether the mining upgrade is active (1) or not (0).', value: (n) => (n.mining ? (n.mining.upgraded ? 1 : 0) : undefined) },
      { per: 'network', name: 'ledger_mining_blocks_until_upgrade', help: 'Blocks left until the mining upgrade height (0 once reached).', value: (n) => n.mining?.blocksUntilUpgrade },
    ],
  },
  validators: {
    request: { kind: 'rpc', method: RPC_METHODS.validators },
    parse(result, ctx) {
      const last = lastValidators.get(ctx);
      let value = parseValidators(result, ctx.budget.maxValidators, last);
      // A list other than the node's last: another node's equal list if there is one (validatorLists.ts).
      if (value !== last) value = sharedValidators(value);
      lastValidators.set(ctx, value);
      return { probe: 'validators', value };
    },
    apply: (node, d) => (sameValidators(node.validators, d.value) || (node.validators = d.value), false),
    clear: (node) => void (node.validators = undefined),
    metrics: [
      { per: 'node', name: 'ledger_node_validators', help: 'Number of validators this node reports.', value: (v) => v.validators?.length },
      { per: 'network', name: 'ledger_validators_active', help: 'Size of the active validator set.', value: (n) => n.validators?.list.length },
      { per: 'network', name: 'ledger_validators_stake_tokens', help: 'Total active stake, in tokens.', value: (n) => n.validators?.totalStakeTokens },
      { per: 'network', name: 'ledger_fleet_validator_set_mismatch', help: 'Whether nodes up disagree on the validator set (1) or not (0).', value: (n) => n.validatorSetMismatch },
      { per: 'validator', name: 'ledger_validator_stake_tokens', help: 'Stake of an active validator, in tokens.', value: (v) => v.stakeTokens },
      { per: 'validator', name: 'ledger_validator_weight', help: 'Weight of an active validator.', value: (v) => v.weight },
      { per: 'validator', name: 'ledger_validator_agent_score', help: 'Agent score of an active validator.', value: (v) => v.agentScore },
    ],
  },
};

// The table in use: the built-in probes, and any registered at run time (an extension, a test).
const table = new Map<string, ProbeDescriptor>(Object.entries(PROBES) as [string, ProbeDescriptor][]);

/** Adds a probe kind; its name must be new. */
export function registerProbe<D extends { probe: string }>(name: string, descriptor: ProbeDescriptor<D>): void {
  if (table.has(name)) throw new Error(`probe ${name} is already registered`);
  table.set(name, descriptor as unknown as ProbeDescriptor);
}

/** Removes a probe kind added by registerProbe; the built-in ones stay. */
export function unregisterProbe(name: string): void {
  if (!(name in PROBES)) table.delete(name);
}

export function probeDescriptor(name: string): ProbeDescriptor {
  const d = table.get(name);
  if (!d) throw new Error(`unknown probe ${name}`);
  return d;
}

/** Every probe kind in use, built-in ones first, in registration order. */
export function probeDescriptors(): IterableIterator<ProbeDescriptor> {
  return table.values();
}

/** Applies a success through its probe's descriptor. */
export function applyProbeData(node: NodeValues, data: ProbeData, at: number): boolean {
  return probeDescriptor(data.probe).apply(node, data, at);
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
