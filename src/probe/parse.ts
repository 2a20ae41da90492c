// Pure parsers of node answers. Tolerant of missing and extra fields, strict about the type of
// every field they use: a wrong shape is an invalid response, never a half-read value.
import type { HealthData, MiningStats, ValidatorInfo } from '../domain.js';
import { DEFAULT_MAX_VALIDATORS } from './budget.js';
import { ProbeError } from './http.js';

function invalid(message: string): ProbeError {
  return new ProbeError('invalid_response', message);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A non-negative integer that a double holds exactly. */
function count(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw invalid(`${field} is not a non-negative integer: ${describe(v)}`);
  }
  return v;
}

function optionalCount(obj: Record<string, unknown>, key: string, field: string): number | undefined {
  return obj[key] === undefined || obj[key] === null ? undefined : count(obj[key], field);
}

function optionalString(obj: Record<string, unknown>, key: string, field: string, max = 256): string | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalid(`${field} is not a string: ${describe(v)}`);
  return v.slice(0, max);
}

function describe(v: unknown): string {
  if (typeof v === 'string') return `string of length ${v.length}`;
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  return typeof v === 'number' ? String(v) : typeof v;
}

/** Parses JSON text; the message never echoes the body (it may be huge or hold secrets). */
export function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw invalid(`${what}: body is not valid JSON`);
  }
}

export function parseHealth(body: unknown): HealthData {
  if (!isObject(body)) throw invalid(`/health: expected a JSON object, got ${describe(body)}`);
  return {
    status: optionalString(body, 'status', 'health.status', 32),
    version: optionalString(body, 'version', 'health.version', 64),
    chainId: optionalString(body, 'chain_id', 'health.chain_id', 128),
    genesisHash: optionalString(body, 'genesis_hash', 'health.genesis_hash', 128),
    height: optionalCount(body, 'height', 'health.height'),
    epoch: optionalCount(body, 'epoch', 'health.epoch'),
    peerCount: optionalCount(body, 'peer_count', 'health.peer_count'),
    mempoolSize: optionalCount(body, 'mempool_size', 'health.mempool_size'),
    lastBlockAgeSecs: optionalCount(body, 'last_block_age_secs', 'health.last_block_age_secs'),
    uptimeSecs: optionalCount(body, 'uptime_secs', 'health.uptime_secs'),
  };
}

export function parseBlockNumber(result: unknown): number {
  return count(result, 'blockNumber');
}

/** u128 base units: a decimal string (as real nodes send) or a safe integer. Exact. */
export function parseAmount(v: unknown, field: string): bigint {
  if (typeof v === 'string' && /^[0-9]{1,39}$/.test(v)) {
    const n = BigInt(v);
    if (n < 1n << 128n) return n;
  }
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  throw invalid(`${field} is not a u128 amount: ${describe(v)}`);
}

const ADDRESS = /^(0x)?[0-9a-fA-F]{1,128}$/;

/**
 * Addresses are normalised here, once (lower case, no 0x), so one validator written two ways is
 * one validator: the later spelling is dropped, never a second series or a second stake.
 */
export function parseValidators(result: unknown, maxValidators = DEFAULT_MAX_VALIDATORS): ValidatorInfo[] {
  if (!Array.isArray(result)) throw invalid(`getValidators: expected an array, got ${describe(result)}`);
  // A longer list is refused: each validator becomes series and adds to the summed stake.
  if (result.length > maxValidators) throw invalid(`getValidators: ${result.length} validators exceed the cap of ${maxValidators} (polling.maxValidators)`);
  const byAddress = new Map<string, ValidatorInfo>();
  result.forEach((v: unknown, i) => {
    if (!isObject(v)) throw invalid(`getValidators[${i}]: expected an object, got ${describe(v)}`);
    if (typeof v.address !== 'string' || !ADDRESS.test(v.address)) throw invalid(`getValidators[${i}].address is not a hex address`);
    const address = v.address.toLowerCase().replace(/^0x/, '');
    const info = {
      address,
      stake: parseAmount(v.stake, `getValidators[${i}].stake`),
      weight: optionalCount(v, 'weight', `getValidators[${i}].weight`),
      agentScore: optionalCount(v, 'agentScore', `getValidators[${i}].agentScore`),
    };
    if (!byAddress.has(address)) byAddress.set(address, info);
  });
  return [...byAddress.values()];
}

export function parseMiningStats(result: unknown): MiningStats {
  if (!isObject(result)) throw invalid(`getMiningStats: expected an object, got ${describe(result)}`);
  if (typeof result.upgraded !== 'boolean') throw invalid('getMiningStats.upgraded is not a boolean');
  return {
    totalMiners: count(result.totalMiners, 'getMiningStats.totalMiners'),
    activeMiners: count(result.activeMiners, 'getMiningStats.activeMiners'),
    currentBlockReward: parseAmount(result.currentBlockReward, 'getMiningStats.currentBlockReward'),
    miningUpgradeHeight: count(result.miningUpgradeHeight, 'getMiningStats.miningUpgradeHeight'),
    upgraded: result.upgraded,
  };
}

/**
 * Whether two answers hold the same validators, in the same order. A node keeps its previous list
 * when the new answer says the same (nearly always): the new one dies young instead of every
 * node's list being replaced (and outliving a scavenge) at every poll, and views keyed on the
 * list (the set key per node, see state/snapshot.ts) keep their work.
 */
export function sameValidators(a: readonly ValidatorInfo[] | undefined, b: readonly ValidatorInfo[]): boolean {
  if (a === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.address !== y.address || x.stake !== y.stake || x.weight !== y.weight || x.agentScore !== y.agentScore) return false;
  }
  return true;
}

/** Whether two mining answers say the same (see sameValidators). */
export function sameMiningStats(a: MiningStats | undefined, b: MiningStats): boolean {
  return (
    a !== undefined &&
    a.totalMiners === b.totalMiners &&
    a.activeMiners === b.activeMiners &&
    a.currentBlockReward === b.currentBlockReward &&
    a.miningUpgradeHeight === b.miningUpgradeHeight &&
    a.upgraded === b.upgraded
  );
}

/** Base units to tokens: exact integer part, then the fraction, so u128 values lose only float rounding. */
export function toTokens(raw: bigint, decimals: number): number {
  const scale = 10n ** BigInt(decimals);
  return Number(raw / scale) + Number(raw % scale) / Number(scale);
}
