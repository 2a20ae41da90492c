// What a damaged alert state file still proves. Every entry that is whole in the text and valid by
// its own schema is kept (files/jsonSalvage.ts: nothing is completed or guessed), the rest dropped,
// and what the loss means is said: which pages may be sent again, which resolves cannot be sent.
// A log entry proves a delivery only with the unconfirmed list beside it, so when that list is cut
// (or one of its entries is lost) the log entries it might have named count as not delivered.
import { isDateMs } from '../../files/diskTime.js';
import { pathKey, salvageJson, type JsonPath, type PathRole } from '../../files/jsonSalvage.js';
import type { DispatcherState } from './dispatcher.js';
import {
  ALERT_STATE_VERSION,
  dispatcherEntrySchemas,
  instanceSchema,
  MAX_SAVED_INSTANCES,
  MAX_SAVED_LOG_ENTRIES,
  type AlertState,
} from './stateFile.js';

const RECORDS = ['unconfirmed', 'log', 'pushed'] as const;
type Part = (typeof RECORDS)[number] | 'instances';
const PARTS: readonly Part[] = [...RECORDS, 'instances'];

export interface StateSalvage {
  state: AlertState;
  /** Where savedAt came from; `unknown`: neither the file nor its mtime says. */
  savedAtFrom: 'file' | 'mtime' | 'unknown';
  /** Entries kept, by part. */
  recovered: Record<Part, number>;
  /** Entries that were in the text but not whole or not valid. */
  dropped: Record<Part, number>;
  /** The part closed in the text with nothing dropped: nothing of it is lost. */
  complete: Record<Part, boolean>;
  /** Recovered log entries not proved delivered (sent again). */
  unproved: number;
  /** A version this exporter does not read: nothing was recovered. */
  foreignVersion?: unknown;
  /** The read stopped at a bound (nesting, time) before the end: what follows is lost as after a cut. */
  stoppedAt?: { offset: number; why: string };
}

function roleOf(p: JsonPath): PathRole {
  const [a, b] = p;
  if (p.length === 1)
    return a === 'version' || a === 'savedAt'
      ? 'value'
      : a === 'dispatcher' || a === 'instances'
        ? 'section'
        : undefined;
  if (a === 'instances') return p.length === 2 ? 'value' : undefined;
  if (a !== 'dispatcher' || !(RECORDS as readonly unknown[]).includes(b)) return undefined;
  return p.length === 2 ? 'section' : p.length === 3 ? 'value' : undefined;
}

/** The part an entry's path is in: `instances.N` or `dispatcher.<record>.KEY`. */
const partOf = (p: JsonPath): Part | undefined =>
  p.length === 2 && p[0] === 'instances' ? 'instances' : p.length === 3 ? (p[1] as Part) : undefined;

const each = <T>(f: (p: Part) => T): Record<Part, T> =>
  Object.fromEntries(PARTS.map((p) => [p, f(p)])) as Record<Part, T>;

/** Salvages `text`; `mtimeMs` stands in for a savedAt the text lost. */
export function salvageAlertState(text: string, mtimeMs?: number): StateSalvage {
  const json = salvageJson(text, roleOf);
  const top = (k: string) => json.values.find((v) => v.path.length === 1 && v.path[0] === k)?.value;
  const out: StateSalvage = {
    state: { instances: [], dispatcher: { log: {}, pushed: {}, unconfirmed: {} } },
    savedAtFrom: 'unknown',
    recovered: each(() => 0),
    dropped: each(() => 0),
    complete: each(() => false),
    unproved: 0,
    ...(json.stoppedAt ? { stoppedAt: json.stoppedAt } : {}),
  };
  const version = top('version');
  if (version !== undefined && version !== ALERT_STATE_VERSION) return { ...out, foreignVersion: version };
  const savedAt = top('savedAt');
  if (typeof savedAt === 'number' && isDateMs(savedAt)) [out.state.savedAt, out.savedAtFrom] = [savedAt, 'file'];
  else if (mtimeMs !== undefined) [out.state.savedAt, out.savedAtFrom] = [mtimeMs, 'mtime'];

  const lostKeys = new Set<string>();
  const drop = (part: Part, path: JsonPath) => {
    out.dropped[part]++;
    if (part === 'unconfirmed') lostKeys.add(String(path[2]));
  };
  for (const { path, value } of json.values) {
    const part = partOf(path);
    if (part && !keep(out, part, String(path[path.length - 1]), value)) drop(part, path);
  }
  for (const path of json.broken) {
    const part = partOf(path);
    if (part) drop(part, path);
  }
  for (const p of PARTS) {
    const s = json.sections.get(pathKey(p === 'instances' ? [p] : ['dispatcher', p]));
    out.complete[p] = s?.closed === true && out.dropped[p] === 0;
  }
  // The list is known whole but for the entries dropped from it when it closed; a file without it
  // (written before it existed) had nothing unconfirmed, known when its dispatcher part closed.
  const list = json.sections.get(pathKey(['dispatcher', 'unconfirmed']));
  const listKnown = list ? list.closed : json.sections.get(pathKey(['dispatcher']))?.closed === true;
  if (!list && listKnown) out.complete.unconfirmed = true;
  out.unproved = markUnproved(out.state.dispatcher, listKnown ? lostKeys : undefined);
  return out;
}

/** Takes one entry if its schema accepts it and its part has room; false: dropped. */
function keep(out: StateSalvage, part: Part, key: string, value: unknown): boolean {
  if (out.recovered[part] >= (part === 'instances' ? MAX_SAVED_INSTANCES : MAX_SAVED_LOG_ENTRIES)) return false;
  const d = out.state.dispatcher;
  if (part === 'instances') {
    const ok = instanceSchema.safeParse(value);
    if (!ok.success) return false;
    out.state.instances.push(ok.data);
  } else {
    const taken =
      part === 'log'
        ? put(d.log, key, dispatcherEntrySchemas.log.safeParse(value))
        : part === 'pushed'
          ? put(d.pushed, key, dispatcherEntrySchemas.pushed.safeParse(value))
          : put((d.unconfirmed ??= {}), key, dispatcherEntrySchemas.unconfirmed.safeParse(value));
    if (!taken) return false;
  }
  out.recovered[part]++;
  return true;
}

function put<T>(rec: Record<string, T>, key: string, parsed: { success: true; data: T } | { success: false }): boolean {
  if (parsed.success) setOwn(rec, key, parsed.data);
  return parsed.success;
}

/** `rec[key] = value` as an own property whatever the key (a group key `__proto__` would set the prototype). */
function setOwn<T>(rec: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(rec, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Log entries whose delivery the unconfirmed list cannot vouch for (all, when `lost` is undefined) become unconfirmed.
 */
function markUnproved(d: DispatcherState, lost: ReadonlySet<string> | undefined): number {
  const unconfirmed = (d.unconfirmed ??= {});
  let n = 0;
  for (const [key, entry] of Object.entries(d.log)) {
    if (Object.hasOwn(unconfirmed, key) || (lost && !lost.has(key))) continue;
    setOwn(unconfirmed, key, { alerts: entry.firing, at: entry.at });
    n++;
  }
  return n;
}

/** The log's words for a salvage: what was kept, and what cannot be proved. */
export function describeSalvage(s: StateSalvage): string {
  const r = s.recovered;
  const saved =
    s.state.savedAt === undefined
      ? 'saved at an unknown time'
      : `saved ${new Date(s.state.savedAt).toISOString()}${s.savedAtFrom === 'mtime' ? ' (by its mtime)' : ''}`;
  const lines: string[] = [];
  if (s.foreignVersion !== undefined)
    lines.push(
      `version ${JSON.stringify(s.foreignVersion).slice(0, 40)} is not one this exporter reads: nothing recovered`,
    );
  if (s.stoppedAt)
    lines.push(`read stopped at byte ${s.stoppedAt.offset} (${s.stoppedAt.why}): what follows is lost as after a cut`);
  lines.push(
    `recovered ${many(r.log, 'notification log entry', 'notification log entries')}, ` +
      `${many(r.unconfirmed, 'unconfirmed notification')}, ` +
      `${many(r.pushed, 'alertmanager push', 'alertmanager pushes')} ` +
      `and ${many(r.instances, 'alert instance')} (${saved})`,
  );
  const lost = (p: Part) => (s.dropped[p] > 0 ? ` (${many(s.dropped[p], 'entry', 'entries')} cut or invalid)` : '');
  const cannot: string[] = [];
  if (!s.complete.log)
    cannot.push(
      `notification log entries after the cut are lost${lost('log')}: an alert not in the recovered log that ` +
        'fires again is notified again, even inside its repeat interval',
    );
  if (s.unproved > 0)
    cannot.push(
      `${many(s.unproved, 'recovered log entry', 'recovered log entries')} cannot be proved delivered ` +
        '(the list of unconfirmed notifications is cut): sent again',
    );
  if (!s.complete.instances)
    cannot.push(
      `alert instances lost${lost('instances')}: resolves of alerts that cleared while the exporter was down cannot ` +
        'be sent for them, and a lost pending alert starts its `for` again',
    );
  if (!s.complete.pushed) cannot.push('alertmanager pushes lost: those alerts are pushed again at once');
  if (s.state.savedAt === undefined) cannot.push('the save time is unknown: pending alerts are not restored');
  lines.push(cannot.length > 0 ? `cannot be proved: ${cannot.join('; ')}` : 'nothing lost');
  return lines.join('; ');
}

const many = (n: number, one: string, more = `${one}s`) => `${n} ${n === 1 ? one : more}`;
