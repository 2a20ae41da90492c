// Per node: the last 100 poll results and uptime counts (historyRing.ts packs them into 1,152
// bytes a node, 352 more while a poll in the uptime windows went unanswered), so 10,000 nodes
// stay bounded. The file keeps the 2,304-byte layout the history had in memory before.
import {
  COARSE,
  COUNTERS,
  FINE,
  HISTORY_LENGTH,
  HistoryRing,
  POLLED_AT,
  POLL_OUTCOMES,
  slotOf,
  type Buckets,
  type PollEntry,
  type PollOutcome,
} from './historyRing.js';
import { REASON_CODES, type Reason } from './types.js';

export { HISTORY_LENGTH, POLL_OUTCOMES, type PollEntry, type PollOutcome };

export const UPTIME_WINDOWS = { '1h': 3_600_000, '24h': 86_400_000, '7d': 604_800_000 } as const;
export type UptimeWindow = keyof typeof UPTIME_WINDOWS;

/**
 * The file's layout (big-endian, as a DataView writes): per entry f64 time, u32 duration ms, u16
 * reason number, u8 outcome, u8 reason code; then per counter u16 answered, u16 polled.
 */
const FILE_STRIDE = 16;
const FILE_COUNTERS_AT = HISTORY_LENGTH * FILE_STRIDE;
export const HISTORY_BYTES = FILE_COUNTERS_AT + COUNTERS * 4;

/** What the file saves beside a history's bytes. */
export interface SavedRing {
  head: number;
  count: number;
  fineId: number;
  coarseId: number;
  firstAt?: number;
}

export class NodeHistory extends HistoryRing {
  /** Bucket ids last written, so slots skipped over can be cleared. */
  fineId = -1;
  coarseId = -1;
  /** Time of the first poll recorded: how much time the uptime figures cover. */
  firstAt: number | undefined = undefined;

  add(e: PollEntry): void {
    this.addPoll(e.at, e.outcome, e.durationMs, e.reason);
  }

  /** add() without an entry object (the board records every poll). */
  addPoll(at: number, outcome: PollOutcome, durationMs: number, reason: Reason): void {
    if (this.firstAt === undefined || at < this.firstAt) this.firstAt = at;
    this.push(at, outcome, durationMs, reason);
    const answered = outcome !== 'down';
    this.fineId = this.bump(FINE, this.fineId, at, answered);
    this.coarseId = this.bump(COARSE, this.coarseId, at, answered);
  }

  private bump(b: Buckets, lastId: number, at: number, answered: boolean): number {
    const id = Math.floor(at / b.size);
    if (id < lastId - b.slots + 1) return lastId; // older than the window kept (clock stepped back)
    if (id > lastId) {
      // Clear the slots between the last written bucket and this one.
      for (let k = Math.max(lastId + 1, id - b.slots + 1); k <= id; k++) this.setCounts(slotOf(b, k), 0, 0);
    }
    const i = slotOf(b, id);
    const polled = this.polled(i);
    const ok = this.answered(i);
    this.setCounts(i, Math.min(0xffff, polled + 1), answered ? Math.min(0xffff, ok + 1) : ok);
    return Math.max(id, lastId);
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
    let first = this.count > 0 ? this.oldestAt : undefined;
    for (let id = this.coarseId - COARSE.slots + 1; id <= this.coarseId; id++) {
      if (id < 0 || this.polled(slotOf(COARSE, id)) === 0) continue;
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
    const out = new NodeHistory();
    out.bytes.set(this.bytes);
    out.missed = this.missed?.slice();
    out.setEntries(
      this.entries().map((e) => ({ ...e, at: f(e.at) })),
      this.head,
    );
    out.firstAt = this.firstAt === undefined ? undefined : f(this.firstAt);
    out.fineId = this.moveBuckets(out, FINE, this.fineId, shiftMs);
    out.coarseId = this.moveBuckets(out, COARSE, this.coarseId, shiftMs);
    return out;
  }

  private moveBuckets(out: NodeHistory, b: Buckets, lastId: number, shiftMs: number): number {
    const k = Math.round(shiftMs / b.size);
    if (lastId < 0 || k === 0) return lastId;
    const counts = [];
    for (let id = lastId - b.slots + 1; id <= lastId; id++)
      counts.push([this.polled(slotOf(b, id)), this.answered(slotOf(b, id))] as const);
    counts.forEach(([polled, ok], j) => out.setCounts(slotOf(b, lastId - b.slots + 1 + j + k), polled, ok));
    return lastId + k;
  }

  /** Fraction of polls answered in the window ending now; undefined when none fell in it. */
  uptime(window: UptimeWindow, now: number): number | undefined {
    const b = window === '1h' ? FINE : COARSE;
    const lastId = window === '1h' ? this.fineId : this.coarseId;
    const span = Math.min(b.slots, Math.ceil(UPTIME_WINDOWS[window] / b.size) + 1);
    const current = Math.floor(now / b.size);
    let ok = 0;
    let total = 0;
    for (let id = current - span + 1; id <= Math.min(current, lastId); id++) {
      if (id < lastId - b.slots + 1 || id < 0) continue;
      ok += this.answered(slotOf(b, id));
      total += this.polled(slotOf(b, id));
    }
    return total === 0 ? undefined : ok / total;
  }

  /** The history in the file's layout (HISTORY_BYTES), as persist.ts writes it. */
  get buf(): ArrayBuffer {
    const buf = new ArrayBuffer(HISTORY_BYTES);
    this.writeFile(new Uint8Array(buf));
    return buf;
  }

  /**
   * Writes the history in the file's layout into `out` (HISTORY_BYTES bytes, zeroed), each time
   * turned by `times` as mapTimes would; returns the fields saved beside the bytes.
   */
  writeFile(out: Uint8Array, times?: { map: (t: number) => number; shiftMs: number }): SavedRing {
    const v = new DataView(out.buffer, out.byteOffset, out.byteLength);
    const f = times?.map ?? ((t: number) => t);
    let at = this.oldestAt;
    for (let k = 0; k < this.count; k++) {
      const s = (this.head - this.count + k + HISTORY_LENGTH) % HISTORY_LENGTH;
      if (k > 0) at = this.timeAfter(s, at);
      const o = s * FILE_STRIDE;
      v.setFloat64(o, f(at));
      v.setUint32(o + 8, this.field(s, 'durationMs'));
      v.setUint16(o + 12, this.field(s, 'n'));
      v.setUint8(o + 14, this.field(s, 'outcome'));
      v.setUint8(o + 15, this.field(s, 'code'));
    }
    const shift = times?.shiftMs ?? 0;
    const ids = { fineId: this.fineId, coarseId: this.coarseId };
    const b = this.bytes;
    for (const [bucket, key] of [
      [FINE, 'fineId'],
      [COARSE, 'coarseId'],
    ] as const) {
      const k = ids[key] < 0 ? 0 : Math.round(shift / bucket.size);
      for (let j = 0; j < bucket.slots; j++) {
        // Counters as u16 answered, u16 polled, big-endian (the packed polls are little-endian).
        const i = bucket.base + j;
        const o = FILE_COUNTERS_AT + slotOf(bucket, j + k) * 4;
        const ok = this.missed === undefined ? -1 : this.answered(i);
        out[o] = ok < 0 ? b[POLLED_AT + i * 2 + 1]! : ok >>> 8;
        out[o + 1] = ok < 0 ? b[POLLED_AT + i * 2]! : ok & 0xff;
        out[o + 2] = b[POLLED_AT + i * 2 + 1]!;
        out[o + 3] = b[POLLED_AT + i * 2]!;
      }
      ids[key] += k;
    }
    const firstAt = this.firstAt === undefined ? undefined : f(this.firstAt);
    return { head: this.head, count: this.count, ...ids, firstAt };
  }

  /** A history read from the file's layout (HISTORY_BYTES) and the ring's place and bucket ids saved with it. */
  static fromFile(
    bytes: Uint8Array,
    at: { head: number; count: number; fineId: number; coarseId: number },
  ): NodeHistory {
    const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const entries: PollEntry[] = [];
    for (let i = at.count; i > 0; i--) {
      const o = ((at.head - i + HISTORY_LENGTH) % HISTORY_LENGTH) * FILE_STRIDE;
      entries.push({
        at: v.getFloat64(o),
        durationMs: v.getUint32(o + 8),
        outcome: POLL_OUTCOMES[v.getUint8(o + 14)] ?? 'down',
        reason: { code: REASON_CODES[v.getUint8(o + 15)] ?? 'none', n: v.getUint16(o + 12) },
      });
    }
    const h = new NodeHistory();
    h.setEntries(entries, at.head);
    for (let i = 0; i < COUNTERS; i++)
      h.setCounts(i, v.getUint16(FILE_COUNTERS_AT + i * 4 + 2), v.getUint16(FILE_COUNTERS_AT + i * 4));
    h.fineId = at.fineId;
    h.coarseId = at.coarseId;
    return h;
  }
}
