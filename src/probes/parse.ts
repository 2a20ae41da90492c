// Pure parsers of node answers. Tolerant of missing and extra fields, strict about the type of
// every field they use: a wrong shape is an invalid response, never a half-read value.
import type { HealthData, MiningStats, ValidatorInfo } from '../domain.js';
import { DEFAULT_MAX_VALIDATORS } from './budget.js';
import { ProbeError } from './errors.js';

export function invalid(message: string): ProbeError {
  return new ProbeError('invalid_response', message);
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A non-negative integer that a double holds exactly. */
export function count(v: unknown, field: string): number {
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

export function describe(v: unknown): string {
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

/** 2^128: u128 amounts are below it (a constant: the shift would allocate a BigInt per amount). */
const U128_LIMIT = 1n << 128n;
const DECIMAL_U128 = /^[0-9]{1,39}$/;

/** u128 base units: a decimal string (as real nodes send) or a safe integer. Exact. */
export function parseAmount(v: unknown, field: string): bigint {
  const n = amountOf(v);
  if (n === undefined) throw invalid(`${field} is not a u128 amount: ${describe(v)}`);
  return n;
}

/** parseAmount without the field name, which is only built for the message of a bad value. */
function amountOf(v: unknown): bigint | undefined {
  if (typeof v === 'string' && DECIMAL_U128.test(v)) {
    const n = BigInt(v);
    if (n < U128_LIMIT) return n;
  }
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  return undefined;
}

/** A validator's optional count: the field name is built only when the value is bad. */
function validatorCount(v: Record<string, unknown>, key: 'weight' | 'agentScore', i: number): number | undefined {
  const x = v[key];
  if (x === undefined || x === null) return undefined;
  if (typeof x === 'number' && Number.isSafeInteger(x) && x >= 0) return x;
  return count(x, `getValidators[${i}].${key}`);
}

const ADDRESS = /^(0x)?[0-9a-fA-F]{1,128}$/;

/**
 * Addresses are normalised here, once (lower case, no 0x), so one validator written two ways is
 * one validator: the later spelling is dropped, never a second series or a second stake.
 * `previous` (this node's last list, if any) only makes the common answer cheaper: an address
 * spelled exactly as its normalised form in the previous list at the same place needs no check,
 * and a list that says the same is returned as the previous one (see sameValidators).
 */
export function parseValidators(
  result: unknown,
  maxValidators = DEFAULT_MAX_VALIDATORS,
  previous?: readonly ValidatorInfo[],
): ValidatorInfo[] {
  if (!Array.isArray(result)) throw invalid(`getValidators: expected an array, got ${describe(result)}`);
  // A longer list is refused: each validator becomes series and adds to the summed stake.
  if (result.length > maxValidators)
    throw invalid(
      `getValidators: ${result.length} validators exceed the cap of ${maxValidators} (polling.maxValidators)`,
    );
  // Runs for every node at every poll: a plain loop, and field names only in messages (building
  // them for every validator cost more than the parse itself).
  const out: ValidatorInfo[] = [];
  // Addresses equal to the previous list's, in order, are distinct already: no set needed.
  let seen: Set<string> | undefined;
  let same = previous !== undefined && previous.length === result.length;
  for (let i = 0; i < result.length; i++) {
    const v: unknown = result[i];
    if (!isObject(v)) throw invalid(`getValidators[${i}]: expected an object, got ${describe(v)}`);
    const was = same ? previous![i]! : undefined;
    const address = was !== undefined && v.address === was.address ? was.address : normalAddress(v.address, i);
    const stake = amountOf(v.stake);
    if (stake === undefined) throw invalid(`getValidators[${i}].stake is not a u128 amount: ${describe(v.stake)}`);
    const weight = validatorCount(v, 'weight', i);
    const agentScore = validatorCount(v, 'agentScore', i);
    if (
      was !== undefined &&
      was.address === address &&
      was.stake === stake &&
      was.weight === weight &&
      was.agentScore === agentScore
    ) {
      out.push(was);
      continue;
    }
    if (same) {
      // From here on the list differs: the addresses taken so far are the previous list's.
      same = false;
      seen = new Set(out.map((x) => x.address));
    }
    seen ??= new Set();
    if (seen.has(address)) continue;
    seen.add(address);
    out.push({ address, stake, weight, agentScore });
  }
  return same ? (previous as ValidatorInfo[]) : out;
}

/** The address checked and normalised (lower case, no 0x prefix). */
function normalAddress(a: unknown, i: number): string {
  if (typeof a !== 'string' || !ADDRESS.test(a)) throw invalid(`getValidators[${i}].address is not a hex address`);
  const lower = a.toLowerCase();
  // ADDRESS allows only a lower-case "0x" prefix, and "x" is no hex digit: a lower-cased "0x" start is that prefix.
  return lower.startsWith('0x') ? lower.slice(2) : lower;
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
  if (a === b) return true;
  if (a === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.address !== y.address || x.stake !== y.stake || x.weight !== y.weight || x.agentScore !== y.agentScore)
      return false;
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
