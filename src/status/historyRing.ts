// A node's poll history packed into bytes: the last 100 entries in a ring and the uptime
// counters, the storage under NodeHistory (history.ts), which decides what goes in.
import { REASON_CODES, type Reason, type ReasonCode } from './types.js';

export const HISTORY_LENGTH = 100;
export const POLL_OUTCOMES = ['up', 'degraded', 'down'] as const;
export type PollOutcome = (typeof POLL_OUTCOMES)[number];

export interface PollEntry {
  at: number;
  outcome: PollOutcome;
  durationMs: number;
  reason: Reason;
}

/**
 * Entry layout (little-endian): u24 ms since the entry before it, u16 duration ms, u16 reason
 * number, u8 reason code | outcome << 6. A time or duration that does not fit (a gap of 4.6 h or
 * more, a time before the previous one or not a whole ms, a poll of 65.5 s or more) is kept
 * whole in `far`, keyed by its slot (durations by slot + HISTORY_LENGTH).
 */
const STRIDE = 8;
const TIME_FAR = 0xffffff;
const DURATION_FAR = 0xffff;
/**
 * Uptime counters per bucket (10-minute buckets for 1 h, hourly for 24 h and 7 d): polls as a u16
 * after the entries; polls not answered, as (polls - answered) mod 2^16, in `missed` once one is.
 */
export interface Buckets {
  size: number;
  slots: number;
  /** Index of the bucket's first counter. */
  base: number;
}
export const FINE: Buckets = { size: 600_000, slots: 7, base: 0 };
export const COARSE: Buckets = { size: 3_600_000, slots: 169, base: 7 };
export const COUNTERS = FINE.slots + COARSE.slots;
export const POLLED_AT = HISTORY_LENGTH * STRIDE;
export const PACKED_BYTES = POLLED_AT + COUNTERS * 2;
export const clampU16 = (x: number): number => Math.max(0, Math.min(0xffff, Math.round(x))) || 0;
export const clampU32 = (x: number): number => Math.max(0, Math.min(0xffffffff, Math.round(x))) || 0;
export const slotOf = (b: Buckets, id: number): number => b.base + (((id % b.slots) + b.slots) % b.slots);

export class HistoryRing {
  protected readonly bytes = new Uint8Array(PACKED_BYTES);
  protected missed: Uint8Array | undefined = undefined;
  private far: Map<number, number> | undefined = undefined;
  /** Times of the oldest and the newest entry (valid while count > 0). */
  protected oldestAt = 0;
  private newestAt = 0;
  /** Next slot to write; `count` valid entries end just before it. */
  head = 0;
  count = 0;

  /** Adds an entry after the newest, over the oldest when full. */
  protected push(at: number, outcome: PollOutcome, durationMs: number, reason: Reason): void {
    const s = this.head;
    if (this.count === HISTORY_LENGTH) this.dropOldest();
    const since = this.count === 0 ? undefined : this.newestAt;
    this.put(s, at, since, clampU32(durationMs), clampU16(reason.n ?? 0), outcome, reason.code);
    if (this.count === 0) this.oldestAt = at;
    this.newestAt = at;
    this.head = (s + 1) % HISTORY_LENGTH;
    this.count = Math.min(HISTORY_LENGTH, this.count + 1);
  }

  /** The oldest entry (in slot `head`) is about to be written over: the next one becomes the oldest. */
  private dropOldest(): void {
    const next = (this.head + 1) % HISTORY_LENGTH;
    this.oldestAt = this.timeAfter(next, this.oldestAt);
  }

  /** The time of the entry in slot `s`, given the time of the entry before it. */
  protected timeAfter(s: number, before: number): number {
    const b = this.bytes;
    const o = s * STRIDE;
    const delta = b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16);
    return delta === TIME_FAR ? this.far!.get(s)! : before + delta;
  }

  /** Writes one entry; `before` is the time of the entry before it (undefined: none). */
  private put(
    s: number,
    at: number,
    before: number | undefined,
    durationMs: number,
    n: number,
    outcome: PollOutcome | undefined,
    code: ReasonCode | undefined,
  ): void {
    const b = this.bytes;
    const o = s * STRIDE;
    this.far?.delete(s);
    this.far?.delete(s + HISTORY_LENGTH);
    let delta = before === undefined ? 0 : at - before;
    if (
      before !== undefined &&
      !(Number.isInteger(delta) && delta >= 0 && delta < TIME_FAR && Object.is(before + delta, at))
    ) {
      delta = TIME_FAR;
      (this.far ??= new Map()).set(s, at);
    }
    b[o] = delta & 0xff;
    b[o + 1] = (delta >>> 8) & 0xff;
    b[o + 2] = delta >>> 16;
    let d = durationMs;
    if (d >= DURATION_FAR) {
      (this.far ??= new Map()).set(s + HISTORY_LENGTH, d);
      d = DURATION_FAR;
    }
    b[o + 3] = d & 0xff;
    b[o + 4] = d >>> 8;
    b[o + 5] = n & 0xff;
    b[o + 6] = n >>> 8;
    // An outcome or code not in the lists reads back as "down" and "none" (as the file's layout did).
    const out = outcome === undefined ? -1 : POLL_OUTCOMES.indexOf(outcome);
    const c = code === undefined ? -1 : REASON_CODES.indexOf(code);
    b[o + 7] = (c < 0 ? 0 : c) | ((out < 0 ? 2 : out) << 6);
  }

  /** Polls counted in counter `i` (FINE or COARSE base + slot). */
  polled(i: number): number {
    const o = POLLED_AT + i * 2;
    return this.bytes[o]! | (this.bytes[o + 1]! << 8);
  }

  /** Answered polls counted in counter `i`. */
  answered(i: number): number {
    const m = this.missed;
    return m === undefined ? this.polled(i) : (this.polled(i) - (m[i * 2]! | (m[i * 2 + 1]! << 8))) & 0xffff;
  }

  /** Sets counter `i` (any two u16 values, as the file may hold). */
  setCounts(i: number, polled: number, answered: number): void {
    const o = POLLED_AT + i * 2;
    this.bytes[o] = polled & 0xff;
    this.bytes[o + 1] = (polled >>> 8) & 0xff;
    const missed = (polled - answered) & 0xffff;
    if (missed === 0 && this.missed === undefined) return;
    const m = (this.missed ??= new Uint8Array(COUNTERS * 2));
    const was = m[i * 2]! | m[i * 2 + 1]!;
    m[i * 2] = missed & 0xff;
    m[i * 2 + 1] = missed >>> 8;
    // Dropped again once every poll in the windows kept was answered.
    if (missed === 0 && was !== 0 && m.every((x) => x === 0)) this.missed = undefined;
  }

  /** Bytes this history holds beyond its object (tests, benches). */
  get heldBytes(): number {
    return PACKED_BYTES + (this.missed?.length ?? 0) + (this.far ? this.far.size * 16 : 0);
  }

  /** Oldest first; at most `limit` of the newest. */
  entries(limit = HISTORY_LENGTH): PollEntry[] {
    const n = Math.min(limit, this.count);
    const out: PollEntry[] = [];
    let at = this.oldestAt;
    for (let k = 0; k < this.count; k++) {
      const s = (this.head - this.count + k + HISTORY_LENGTH) % HISTORY_LENGTH;
      if (k > 0) at = this.timeAfter(s, at);
      if (k >= this.count - n) out.push(this.entryIn(s, at));
    }
    return out;
  }

  protected entryIn(s: number, at: number): PollEntry {
    return {
      at,
      durationMs: this.field(s, 'durationMs'),
      outcome: POLL_OUTCOMES[this.field(s, 'outcome')] ?? 'down',
      reason: { code: REASON_CODES[this.field(s, 'code')] ?? 'none', n: this.field(s, 'n') },
    };
  }

  /** A field of the entry in slot `s`: duration ms, reason number, index of its outcome or reason code. */
  protected field(s: number, f: 'durationMs' | 'n' | 'outcome' | 'code'): number {
    const b = this.bytes;
    const o = s * STRIDE;
    if (f === 'durationMs') {
      const d = b[o + 3]! | (b[o + 4]! << 8);
      return d === DURATION_FAR ? this.far!.get(s + HISTORY_LENGTH)! : d;
    }
    if (f === 'n') return b[o + 5]! | (b[o + 6]! << 8);
    return f === 'outcome' ? b[o + 7]! >>> 6 : b[o + 7]! & 0x3f;
  }

  /**
   * Sets the ring to these entries, oldest first, ending just before slot `head` (a history read
   * from the file, or one with its times mapped); the counters are left as they are.
   */
  setEntries(entries: readonly PollEntry[], head: number): void {
    this.far = undefined;
    this.bytes.fill(0, 0, POLLED_AT);
    this.head = head;
    this.count = Math.min(HISTORY_LENGTH, entries.length);
    let before: number | undefined;
    entries.slice(-HISTORY_LENGTH).forEach((e, k) => {
      const s = (head - this.count + k + HISTORY_LENGTH) % HISTORY_LENGTH;
      this.put(s, e.at, before, clampU32(e.durationMs), clampU16(e.reason.n ?? 0), e.outcome, e.reason.code);
      if (before === undefined) this.oldestAt = e.at;
      before = this.newestAt = e.at;
    });
  }
}
