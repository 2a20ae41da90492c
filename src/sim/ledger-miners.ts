// Miners of a simulated chain as claw-node 0.5.8 settles them: one check-in per epoch, the
// previous epoch settled at each boundary (paid or forfeited, attendance, misses, reputation,
// deactivation after 6 misses), and the reward multiplier from the last 12 epochs.
import { hash32 } from './rng.js';

export const MISSES_TO_DEACTIVATE = 6;
export const REPUTATION_FLOOR_BPS = 2_000;
const MISS_PENALTY_BPS = 100;

/** How a miner behaves when left alone: most check in every epoch, some now and then, some never. */
export type MinerHabit = 'always' | 'flaky' | 'never';

export interface MinerState {
  address: string;
  name: string;
  registeredAt: number;
  ipPrefix: [number, number, number];
  habit: MinerHabit;
  /** Check-ins stopped from outside (the control API): the rig is down. */
  stopped: boolean;
  active: boolean;
  reputationBps: number;
  pending: bigint;
  pendingEpoch: number;
  /** Settled epochs, bit 0 = the newest. */
  attendance: number;
  misses: number;
  lastCheckinEpoch: number;
  lastHeartbeat: number;
  checkedIn: boolean;
  /** Blocks into each epoch at which it checks in. */
  checkinOffset: number;
}

export type MinerSeed = Pick<
  MinerState,
  'address' | 'name' | 'registeredAt' | 'ipPrefix' | 'habit' | 'stopped' | 'reputationBps' | 'checkinOffset'
>;

export function checksIn(m: MinerState, epoch: number): boolean {
  if (m.stopped || m.habit === 'never') return false;
  return m.habit === 'always' || hash32(`${m.address}:checkin:${epoch}`) % 4 !== 0;
}

function popcount12(bits: number): number {
  let n = 0;
  for (let i = 0; i < 12; i++) n += (bits >> i) & 1;
  return n;
}

/** Check-ins among the last 12 settled epochs. */
export const attendanceEpochs = (m: MinerState): number => popcount12(m.attendance);

/** The reward multiplier in basis points: 12 -> 10,000, 9-11 -> 8,000, 6-8 -> 5,000, fewer -> 0. */
export function multiplierBps(m: MinerState): number {
  if (!m.active) return 0;
  const n = attendanceEpochs(m);
  return n >= 12 ? 10_000 : n >= 9 ? 8_000 : n >= 6 ? 5_000 : 0;
}

/** Settles the epoch that just ended; returns the rewards paid (0 when forfeited). */
export function settleMiner(m: MinerState, nextEpoch: number): bigint {
  let paid = 0n;
  if (m.checkedIn) {
    paid = m.pending;
    m.active = true;
    m.misses = 0;
    m.attendance = ((m.attendance << 1) | 1) & 0xffff;
  } else {
    m.misses += 1;
    m.reputationBps = Math.max(REPUTATION_FLOOR_BPS, m.reputationBps - MISS_PENALTY_BPS);
    if (m.misses >= MISSES_TO_DEACTIVATE) m.active = false;
    m.attendance = (m.attendance << 1) & 0xffff;
  }
  m.pending = 0n;
  m.pendingEpoch = nextEpoch;
  m.checkedIn = false;
  return paid;
}

/**
 * Runs the blocks [from, to] of one epoch for a miner: its check-in if due in that span, and
 * its share of the mining pool accrued per block while it earns.
 */
export function runMinerBlocks(
  m: MinerState,
  epoch: number,
  epochStart: number,
  from: number,
  to: number,
  perBlock: bigint,
): void {
  const at = epochStart + m.checkinOffset;
  if (!m.checkedIn && at >= from && at <= to && checksIn(m, epoch)) checkIn(m, epoch, at);
  const mult = multiplierBps(m);
  if (mult > 0 && perBlock > 0n) m.pending += (perBlock * BigInt(to - from + 1) * BigInt(mult)) / 10_000n;
}

export function checkIn(m: MinerState, epoch: number, height: number): void {
  m.checkedIn = true;
  m.lastCheckinEpoch = epoch;
  m.lastHeartbeat = height;
}

/** A miner's state at the end of block `startHeight`: `warmEpochs` epochs of its habit already settled. */
export function warmMiner(seed: MinerSeed, startHeight: number, epochBlocks: number, warmEpochs: number): MinerState {
  const m: MinerState = {
    ...seed,
    active: false,
    pending: 0n,
    pendingEpoch: 0,
    attendance: 0,
    misses: 0,
    checkedIn: false,
    lastCheckinEpoch: 0,
    lastHeartbeat: seed.registeredAt,
  };
  const startEpoch = Math.floor(startHeight / epochBlocks);
  for (let e = startEpoch - warmEpochs; e <= startEpoch; e++) {
    const at = e * epochBlocks + m.checkinOffset;
    if (at <= startHeight && checksIn(m, e)) checkIn(m, e, Math.max(seed.registeredAt, at));
    if (e < startEpoch) settleMiner(m, e + 1);
  }
  return m;
}

/** The serde form getMinerInfo answers; pending_rewards is written as an exact JSON number. */
export function minerInfoFields(m: MinerState): Record<string, unknown> {
  return {
    address: Array.from(Buffer.from(m.address, 'hex')),
    tier: 'Online',
    name: m.name,
    registered_at: m.registeredAt,
    last_heartbeat: m.lastHeartbeat,
    ip_prefix: m.ipPrefix,
    active: m.active,
    reputation_bps: m.reputationBps,
    pending_rewards: m.pending,
    pending_epoch: m.pendingEpoch,
    epoch_attendance: m.attendance,
    consecutive_misses: m.misses,
    last_checkin_epoch: m.lastCheckinEpoch,
  };
}
