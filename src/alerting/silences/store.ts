// The silences and acknowledgements, with Alertmanager's semantics: a silence is pending before
// its start, active until its end, then expired and kept 5 days. An update that would rewrite
// history (other matchers, an active silence's start moved) expires the old silence and creates
// a new one with a new id, as Alertmanager does. Pure: every time comes in as an argument
// (wall-clock ms); the file (silenceFile.ts) and the wiring (component.ts) do the I/O.
import { randomUUID } from 'node:crypto';
import type { Labels } from '../rules/types.js';
import { compileMatchers, type LabelTest } from './matchers.js';
import type {
  Actor,
  Matcher,
  PostableSilence,
  Silence,
  SilenceRefusal,
  SilenceService,
  SilenceState,
  SilenceWrite,
} from './types.js';

export const EXPIRED_RETENTION_MS = 5 * 24 * 3_600_000;
export const MAX_SILENCES = 10_000;
export const MAX_MATCHERS = 64;
export const MAX_TEXT = 4_096;
export const ACK_PREFIX = 'ack: ';

/** One change, as the log line says it: who, what, through which interface. */
export interface SilenceEvent {
  action: 'create' | 'update' | 'expire' | 'replicate';
  silence: Silence;
  actor: Actor;
}

export interface SilenceStoreOptions {
  /** The labels of the pending or firing alert with this fingerprint (acknowledgements). */
  alertLabels(fingerprint: string): Labels | undefined;
  /** How long an acknowledgement lasts at most when its alert does not resolve. */
  ackMaxMs: number;
  /** Every change, local or from a peer (the log line and the file write). */
  onEvent?(e: SilenceEvent): void;
  newId?(): string;
}

interface Entry {
  silence: Silence;
  test: LabelTest;
}

export function silenceState(s: Silence, now: number): SilenceState {
  if (now < s.startsAt) return 'pending';
  return now < s.endsAt ? 'active' : 'expired';
}

const refuse = (status: number, error: string): SilenceRefusal => ({ status, error });

export class SilenceStore implements SilenceService {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<(s: Silence) => void>();

  constructor(private readonly opts: SilenceStoreOptions) {}

  list(now: number): Array<Silence & { state: SilenceState }> {
    this.gc(now);
    return [...this.entries.values()].map((e) => ({ ...e.silence, state: silenceState(e.silence, now) }));
  }

  get(id: string, now: number): (Silence & { state: SilenceState }) | undefined {
    const e = this.entries.get(id);
    return e && { ...e.silence, state: silenceState(e.silence, now) };
  }

  upsert(input: PostableSilence, actor: Actor, now: number): SilenceWrite {
    return this.write(input, actor, now);
  }

  private write(input: PostableSilence, actor: Actor, now: number, ackOf?: string): SilenceWrite {
    const checked = this.check(input, now);
    if ('error' in checked) return checked;
    const prev = input.id !== undefined && input.id !== '' ? this.entries.get(input.id) : undefined;
    if (input.id && !prev) return refuse(404, 'silence not found');
    const fields = {
      matchers: input.matchers.map((m) => ({ ...m })),
      endsAt: input.endsAt,
      createdBy: input.createdBy,
      comment: input.comment,
      updatedAt: now,
    };
    if (prev && canUpdate(prev.silence, input, now)) {
      const silence: Silence = { ...prev.silence, ...fields, startsAt: input.startsAt };
      this.put(silence, checked.test, 'update', actor);
      return { id: silence.id };
    }
    if (this.entries.size >= MAX_SILENCES)
      return refuse(400, `exceeded maximum number of silences: ${this.entries.size} (limit: ${MAX_SILENCES})`);
    if (prev && silenceState(prev.silence, now) !== 'expired') this.expire(prev.silence.id, actor, now);
    const silence: Silence = {
      id: this.newId(),
      ...fields,
      startsAt: Math.max(input.startsAt, now),
      ...(ackOf !== undefined ? { ackOf } : {}),
    };
    this.put(silence, checked.test, 'create', actor);
    return { id: silence.id };
  }

  expire(id: string, actor: Actor, now: number): SilenceWrite {
    const e = this.entries.get(id);
    if (!e) return refuse(404, 'silence not found');
    const s = e.silence;
    const state = silenceState(s, now);
    if (state === 'expired') return { id };
    const silence = { ...s, endsAt: now, updatedAt: now, ...(state === 'pending' ? { startsAt: now } : {}) };
    this.put(silence, e.test, 'expire', actor);
    return { id };
  }

  ack(fingerprint: string, actor: Actor, comment: string, now: number, createdBy?: string): SilenceWrite {
    const labels = this.opts.alertLabels(fingerprint);
    if (!labels) return refuse(404, `no pending or firing alert has fingerprint ${JSON.stringify(fingerprint)}`);
    const matchers: Matcher[] = Object.keys(labels)
      .sort()
      .map((name) => ({ name, value: labels[name]!, isRegex: false, isEqual: true }));
    const text = comment.startsWith(ACK_PREFIX.trim()) ? comment : `${ACK_PREFIX}${comment}`.trimEnd();
    const current = [...this.entries.values()].find(
      (e) => e.silence.ackOf === fingerprint && silenceState(e.silence, now) === 'active',
    );
    const input: PostableSilence = {
      ...(current ? { id: current.silence.id } : {}),
      matchers,
      startsAt: current?.silence.startsAt ?? now,
      endsAt: now + this.opts.ackMaxMs,
      createdBy: createdBy ?? actor.user,
      comment: text,
    };
    return this.write(input, actor, now, fingerprint);
  }

  /** Expires the acknowledgements of alerts no longer pending or firing (they resolved). */
  expireAcks(stillActive: (fingerprint: string) => boolean, now: number): string[] {
    const done: string[] = [];
    for (const e of [...this.entries.values()]) {
      const s = e.silence;
      if (s.ackOf === undefined || stillActive(s.ackOf) || silenceState(s, now) === 'expired') continue;
      this.expire(s.id, { user: 'exporter', via: 'api' }, now);
      done.push(s.id);
    }
    return done;
  }

  silencedBy(labels: Labels, now: number): string[] {
    const out: string[] = [];
    for (const e of this.entries.values())
      if (now >= e.silence.startsAt && now < e.silence.endsAt && e.test(labels)) out.push(e.silence.id);
    return out;
  }

  onChange(listener: (s: Silence) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  applyRemote(s: Silence, now: number): boolean {
    const test = compileMatchers(s.matchers);
    if (typeof test !== 'function' || !(s.endsAt >= s.startsAt)) return false;
    const mine = this.entries.get(s.id);
    if (mine && mine.silence.updatedAt >= s.updatedAt) return false;
    if (silenceState(s, now) === 'expired' && s.endsAt + EXPIRED_RETENTION_MS <= now) return false;
    this.entries.set(s.id, { silence: { ...s }, test });
    this.opts.onEvent?.({ action: 'replicate', silence: s, actor: { user: s.createdBy, via: 'peer' } });
    return true;
  }

  /** Restores saved silences (a file's); ones that no longer compile are left out and returned. */
  restore(silences: readonly Silence[], now: number): Silence[] {
    const bad: Silence[] = [];
    for (const s of silences) {
      const test = compileMatchers(s.matchers);
      if (typeof test === 'function') this.entries.set(s.id, { silence: s, test });
      else bad.push(s);
    }
    this.gc(now);
    return bad;
  }

  /** Every kept silence (what the file holds). */
  all(): Silence[] {
    return [...this.entries.values()].map((e) => e.silence);
  }

  /** Forgets silences expired more than 5 days ago; returns how many. */
  gc(now: number): number {
    let n = 0;
    for (const [id, e] of this.entries)
      if (e.silence.endsAt + EXPIRED_RETENTION_MS <= now) n += Number(this.entries.delete(id));
    return n;
  }

  private put(silence: Silence, test: LabelTest, action: SilenceEvent['action'], actor: Actor): void {
    this.entries.set(silence.id, { silence, test });
    this.opts.onEvent?.({ action, silence, actor });
    for (const l of this.listeners) l(silence);
  }

  /** Alertmanager's validation, phrased as it phrases it (400). */
  private check(input: PostableSilence, now: number): { test: LabelTest } | SilenceRefusal {
    const bad = (why: string) => refuse(400, `invalid silence: ${why}`);
    if (!Array.isArray(input.matchers) || input.matchers.length > MAX_MATCHERS)
      return bad(`between 1 and ${MAX_MATCHERS} matchers required`);
    const test = compileMatchers(input.matchers);
    if (typeof test !== 'function') return bad(test.error);
    if (!Number.isFinite(input.startsAt) || input.startsAt <= 0) return bad('invalid zero start timestamp');
    if (!Number.isFinite(input.endsAt) || input.endsAt <= 0) return bad('invalid zero end timestamp');
    if (input.startsAt >= input.endsAt)
      return refuse(400, 'Failed to create silence: start time must be before end time');
    if (input.endsAt < now) return refuse(400, "Failed to create silence: end time can't be in the past");
    if (input.comment.length > MAX_TEXT || input.createdBy.length > MAX_TEXT)
      return bad(`comment and createdBy are limited to ${MAX_TEXT} characters`);
    return { test };
  }

  private newId(): string {
    return this.opts.newId?.() ?? randomUUID();
  }
}

/** Alertmanager's canUpdate: the same matchers, and no change to the part of it already in effect. */
function canUpdate(prev: Silence, next: PostableSilence, now: number): boolean {
  const same =
    prev.matchers.length === next.matchers.length &&
    prev.matchers.every((m, i) => {
      const n = next.matchers[i]!;
      return m.name === n.name && m.value === n.value && m.isRegex === n.isRegex && m.isEqual === n.isEqual;
    });
  if (!same) return false;
  switch (silenceState(prev, now)) {
    case 'active':
      return Math.floor(prev.startsAt / 1000) === Math.floor(next.startsAt / 1000) && next.endsAt >= now;
    case 'pending':
      return next.startsAt >= now;
    default:
      return false;
  }
}
