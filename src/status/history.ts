// Per node: the last 100 poll results and uptime counts, in one fixed-size buffer per node
// (2,304 bytes of data; see README for the measured total), so 10,000 nodes stay bounded.
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

export const UPTIME_WINDOWS = { '1h': 3_600_000, '24h': 86_400_000, '7d': 604_800_000 } as const;
export type UptimeWindow = keyof typeof UPTIME_WINDOWS;

// Entry layout: f64 time, u32 duration ms, u16 reason number, u8 outcome, u8 reason code.
const STRIDE = 16;
/** Uptime counters (u16 answered, u16 polled) per bucket: 10-minute buckets for 1 h, hourly for 24 h and 7 d. */
const FINE = { size: 600_000, slots: 7, offset: HISTORY_LENGTH * STRIDE };
const COARSE = { size: 3_600_000, slots: 169, offset: FINE.offset + FINE.slots * 4 };
export const HISTORY_BYTES = COARSE.offset + COARSE.slots * 4;
type Buckets = typeof FINE | typeof COARSE;

export class NodeHistory {
  readonly buf: ArrayBuffer;
  /** Next slot to write; `count` valid entries end just before it. */
  head = 0;
  count = 0;
  /** Bucket ids last written, so slots skipped over can be cleared. */
  fineId = -1;
  coarseId = -1;
  /** Time of the first poll recorded: how much time the uptime figures cover. */
  firstAt: number | undefined = undefined;

  constructor(buf?: ArrayBuffer) {
    this.buf = buf && buf.byteLength === HISTORY_BYTES ? buf : new ArrayBuffer(HISTORY_BYTES);
  }

  add(e: PollEntry): void {
    const v = new DataView(this.buf);
    const o = this.head * STRIDE;
    if (this.firstAt === undefined || e.at < this.firstAt) this.firstAt = e.at;
    v.setFloat64(o, e.at);
    v.setUint32(o + 8, Math.max(0, Math.min(0xffffffff, Math.round(e.durationMs))));
    v.setUint16(o + 12, Math.max(0, Math.min(0xffff, Math.round(e.reason.n ?? 0))));
    v.setUint8(o + 14, POLL_OUTCOMES.indexOf(e.outcome));
    v.setUint8(o + 15, REASON_CODES.indexOf(e.reason.code));
    this.head = (this.head + 1) % HISTORY_LENGTH;
    this.count = Math.min(HISTORY_LENGTH, this.count + 1);
    const answered = e.outcome !== 'down';
    this.fineId = this.bump(v, FINE, this.fineId, e.at, answered);
    this.coarseId = this.bump(v, COARSE, this.coarseId, e.at, answered);
  }

  private bump(v: DataView, b: Buckets, lastId: number, at: number, answered: boolean): number {
    const id = Math.floor(at / b.size);
    if (id < lastId - b.slots + 1) return lastId; // older than the window kept (clock stepped back)
    if (id > lastId) {
      // Clear the slots between the last written bucket and this one.
      for (let k = Math.max(lastId + 1, id - b.slots + 1); k <= id; k++) v.setUint32(b.offset + (k % b.slots) * 4, 0);
    }
    const o = b.offset + (id % b.slots) * 4;
    if (answered) v.setUint16(o, Math.min(0xffff, v.getUint16(o) + 1));
    v.setUint16(o + 2, Math.min(0xffff, v.getUint16(o + 2) + 1));
    return Math.max(id, lastId);
  }

  /** Oldest first; at most `limit` of the newest. */
  entries(limit = HISTORY_LENGTH): PollEntry[] {
    const v = new DataView(this.buf);
    const n = Math.min(limit, this.count);
    const out: PollEntry[] = [];
    for (let i = n; i > 0; i--) {
      const o = ((this.head - i + HISTORY_LENGTH) % HISTORY_LENGTH) * STRIDE;
      const code: ReasonCode = REASON_CODES[v.getUint8(o + 15)] ?? 'none';
      const num = v.getUint16(o + 12);
      out.push({
        at: v.getFloat64(o),
        durationMs: v.getUint32(o + 8),
        outcome: POLL_OUTCOMES[v.getUint8(o + 14)] ?? 'down',
        reason: { code, n: num },
      });
    }
    return out;
  }

  /**
   * How much of the window ending now the uptime figure covers: from the first poll recorded (or
   * the window's start, when that is later) to now; 0 before any poll.
   */
  covered(window: UptimeWindow, now: number): number {
    if (this.firstAt === undefined) return 0;
    return Math.max(0, Math.min(UPTIME_WINDOWS[window], now - this.firstAt));
  }

  /**
   * The first poll of a history saved without it (an earlier file format): the start of the
   * oldest hourly bucket with polls, or the oldest entry, whichever is earlier.
   */
  guessFirstAt(): number | undefined {
    const v = new DataView(this.buf);
    let first = this.entries(HISTORY_LENGTH)[0]?.at;
    for (let id = this.coarseId - COARSE.slots + 1; id <= this.coarseId; id++) {
      if (id < 0 || v.getUint16(COARSE.offset + (id % COARSE.slots) * 4 + 2) === 0) continue;
      first = Math.min(first ?? Infinity, id * COARSE.size);
      break;
    }
    return first;
  }

  /**
   * A copy with every time mapped by `f` (the file holds wall times, memory monotonic ones) and
   * the uptime buckets moved by `shiftMs` rounded to whole buckets (a count cannot be split).
   */
  mapTimes(f: (t: number) => number, shiftMs: number): NodeHistory {
    const out = new NodeHistory(this.buf.slice(0));
    const v = new DataView(out.buf);
    for (let i = 1; i <= this.count; i++) {
      const o = ((this.head - i + HISTORY_LENGTH) % HISTORY_LENGTH) * STRIDE;
      v.setFloat64(o, f(v.getFloat64(o)));
    }
    out.head = this.head;
    out.count = this.count;
    out.firstAt = this.firstAt === undefined ? undefined : f(this.firstAt);
    out.fineId = this.moveBuckets(out, FINE, this.fineId, shiftMs);
    out.coarseId = this.moveBuckets(out, COARSE, this.coarseId, shiftMs);
    return out;
  }

  private moveBuckets(out: NodeHistory, b: Buckets, lastId: number, shiftMs: number): number {
    const k = Math.round(shiftMs / b.size);
    if (lastId < 0 || k === 0) return lastId;
    const from = new DataView(this.buf);
    const to = new DataView(out.buf);
    const slot = (id: number) => b.offset + (((id % b.slots) + b.slots) % b.slots) * 4;
    for (let id = lastId - b.slots + 1; id <= lastId; id++) to.setUint32(slot(id + k), from.getUint32(slot(id)));
    return lastId + k;
  }

  /** Fraction of polls answered in the window ending now; undefined when none fell in it. */
  uptime(window: UptimeWindow, now: number): number | undefined {
    const b = window === '1h' ? FINE : COARSE;
    const lastId = window === '1h' ? this.fineId : this.coarseId;
    const span = Math.min(b.slots, Math.ceil(UPTIME_WINDOWS[window] / b.size) + 1);
    const v = new DataView(this.buf);
    const current = Math.floor(now / b.size);
    let ok = 0;
    let total = 0;
    for (let id = current - span + 1; id <= Math.min(current, lastId); id++) {
      if (id < lastId - b.slots + 1 || id < 0) continue;
      const o = b.offset + (id % b.slots) * 4;
      ok += v.getUint16(o);
      total += v.getUint16(o + 2);
    }
    return total === 0 ? undefined : ok / total;
  }
}
