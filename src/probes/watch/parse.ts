// Pure parsers of the answers the watch reads (claw-node 0.5.x shapes, reference-node-facts.md):
// amounts exact (u128), an unknown address a value (null: not registered), a wrong shape an
// invalid response for that one read.
import { count, describe, invalid, isObject, parseAmount } from '../parse.js';

const HEX64 = /^[0-9a-f]{64}$/;

export function parseAddress(v: unknown, field: string): string {
  if (typeof v !== 'string' || !HEX64.test(v.toLowerCase()))
    throw invalid(`${field} is not a 64-hex address: ${describe(v)}`);
  return v.toLowerCase();
}

/** An id or address in the node's serde form (32 numbers 0..255), as 64 lowercase hex characters. */
export function bytes32Hex(v: unknown, field: string): string {
  if (!Array.isArray(v) || v.length !== 32 || !v.every((b) => Number.isInteger(b) && b >= 0 && b <= 255))
    throw invalid(`${field} is not an array of 32 bytes: ${describe(v)}`);
  return (v as number[]).map((b) => b.toString(16).padStart(2, '0')).join('');
}

const optionalCount = (o: Record<string, unknown>, k: string, field: string) =>
  o[k] === undefined || o[k] === null ? undefined : count(o[k], field);

export type ValidatorDetail =
  | { registered: false }
  | {
      registered: true;
      stake: bigint;
      weight?: number;
      agentScore?: number;
      commissionBps?: number;
      jailed?: boolean;
      uptime?: { expected: number; produced: number; signed: number };
    };

/** getValidatorDetail [addr]: null when the address has no stake; the address checked against the one asked. */
export function parseValidatorDetail(result: unknown, address: string): ValidatorDetail {
  if (result === null) return { registered: false };
  if (!isObject(result)) throw invalid(`getValidatorDetail: expected an object or null, got ${describe(result)}`);
  if (parseAddress(result.address, 'getValidatorDetail.address') !== address)
    throw invalid('getValidatorDetail answered for another address');
  if (result.jailed !== undefined && typeof result.jailed !== 'boolean')
    throw invalid('getValidatorDetail.jailed is not a boolean');
  const u = result.uptime;
  if (u !== undefined && u !== null && !isObject(u))
    throw invalid(`getValidatorDetail.uptime: expected an object or null, got ${describe(u)}`);
  return {
    registered: true,
    stake: parseAmount(result.stake, 'getValidatorDetail.stake'),
    weight: optionalCount(result, 'weight', 'getValidatorDetail.weight'),
    agentScore: optionalCount(result, 'agentScore', 'getValidatorDetail.agentScore'),
    commissionBps: optionalCount(result, 'commission_bps', 'getValidatorDetail.commission_bps'),
    jailed: result.jailed,
    uptime: isObject(u)
      ? {
          expected: count(u.expected_blocks, 'uptime.expected_blocks'),
          produced: count(u.produced_blocks, 'uptime.produced_blocks'),
          signed: count(u.signed_blocks, 'uptime.signed_blocks'),
        }
      : undefined,
  };
}

/** getBlockRewards [height]: who was paid in that block; null for a height the node does not have. */
export interface BlockRewards {
  height: number;
  /** Recipients paid as validators (block_reward, validator_commission); undefined for an unknown height. */
  paid?: string[];
  /** Entries of any type (0: the reward pool is empty and nobody was paid). */
  entries?: number;
}

const VALIDATOR_PAY = new Set(['block_reward', 'validator_commission']);

export function parseBlockRewards(result: unknown, height: number): BlockRewards {
  if (result === null) return { height };
  if (!Array.isArray(result)) throw invalid(`getBlockRewards: expected an array or null, got ${describe(result)}`);
  const paid = new Set<string>();
  result.forEach((r: unknown, i) => {
    if (!isObject(r)) throw invalid(`getBlockRewards[${i}]: expected an object, got ${describe(r)}`);
    const recipient = parseAddress(r.recipient, `getBlockRewards[${i}].recipient`);
    parseAmount(r.amount, `getBlockRewards[${i}].amount`);
    if (typeof r.rewardType !== 'string') throw invalid(`getBlockRewards[${i}].rewardType is not a string`);
    if (VALIDATOR_PAY.has(r.rewardType)) paid.add(recipient);
  });
  return { height, paid: [...paid].sort(), entries: result.length };
}

export type MinerInfo =
  | { registered: false }
  | {
      registered: true;
      active: boolean;
      reputationBps: number;
      pendingRewards: bigint;
      attendance: number;
      consecutiveMisses: number;
      lastCheckinEpoch: number;
    };

/** The serde form: the address as 32 numbers (checked against the one asked), pending_rewards exact. */
export function parseMinerInfo(result: unknown, address: string): MinerInfo {
  if (result === null) return { registered: false };
  if (!isObject(result)) throw invalid(`getMinerInfo: expected an object or null, got ${describe(result)}`);
  const a = result.address;
  if (!Array.isArray(a) || a.length !== 32 || !a.every((b) => Number.isInteger(b) && b >= 0 && b <= 255))
    throw invalid('getMinerInfo.address is not an array of 32 bytes');
  const hex = (a as number[]).map((b) => b.toString(16).padStart(2, '0')).join('');
  if (hex !== address) throw invalid('getMinerInfo answered for another address');
  if (typeof result.active !== 'boolean') throw invalid('getMinerInfo.active is not a boolean');
  const attendance = count(result.epoch_attendance, 'getMinerInfo.epoch_attendance');
  if (attendance > 0xffff) throw invalid('getMinerInfo.epoch_attendance is not a 16-bit map');
  return {
    registered: true,
    active: result.active,
    reputationBps: count(result.reputation_bps, 'getMinerInfo.reputation_bps'),
    pendingRewards: parseAmount(result.pending_rewards, 'getMinerInfo.pending_rewards'),
    attendance,
    consecutiveMisses: count(result.consecutive_misses, 'getMinerInfo.consecutive_misses'),
    lastCheckinEpoch: count(result.last_checkin_epoch, 'getMinerInfo.last_checkin_epoch'),
  };
}

export interface UnbondingEntry {
  amount: bigint;
  releaseHeight: number;
}

export function parseUnbonding(result: unknown): UnbondingEntry[] {
  if (!Array.isArray(result)) throw invalid(`getUnbonding: expected an array, got ${describe(result)}`);
  return result.map((r: unknown, i) => {
    if (!isObject(r)) throw invalid(`getUnbonding[${i}]: expected an object, got ${describe(r)}`);
    return {
      amount: parseAmount(r.amount, `getUnbonding[${i}].amount`),
      releaseHeight: count(r.releaseHeight, `getUnbonding[${i}].releaseHeight`),
    };
  });
}
