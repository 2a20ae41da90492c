// Durable alert state in alerting.stateDir: active instances (activeAt, firingSince) and what was
// last sent to each receiver, so a restart neither repeats a notification nor forgets a firing
// alert. Written atomically; bounded; a damaged file is reported with its text (stateStore.ts sets it
// aside and salvages what it can, stateSalvage.ts), never fatal.
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomically } from '../../files/atomicFile.js';
import { diskTime } from '../../files/diskTime.js';
import { readBack } from '../../files/readBack.js';
import type { DispatcherState } from './dispatcher.js';
import type { AlertInstance } from '../rules/instance.js';

export const ALERT_STATE_VERSION = 1;
export const ALERT_STATE_FILE = 'alerts.json';
/** Bounds: beyond these, resolved and then oldest instances / oldest log entries are dropped. */
export const MAX_SAVED_INSTANCES = 5_000;
export const MAX_SAVED_LOG_ENTRIES = 20_000;
/**
 * Read back at most this much: at the bounds above a file is tens of MB; a larger one is read as
 * cut here (its first parts, the notification log, still salvage).
 */
export const MAX_ALERT_STATE_BYTES = 64 * 1024 * 1024;

export interface AlertState {
  instances: AlertInstance[];
  dispatcher: DispatcherState;
  /** When the file was written (ms); set when read back. */
  savedAt?: number;
}

const labels = z.record(z.string(), z.string());
export const instanceSchema = z.object({
  id: z.string().min(1).max(100),
  alertname: z.string().min(1).max(200),
  labels,
  annotations: labels,
  state: z.enum(['pending', 'firing', 'resolved']),
  value: z.number(),
  activeAt: diskTime,
  firingSince: diskTime.optional(),
  resolvedAt: diskTime.optional(),
  keepFiringSince: diskTime.optional(),
});
/** One entry of each dispatcher record (a damaged file is salvaged entry by entry). */
export const dispatcherEntrySchemas = {
  log: z.object({ firing: z.array(z.string()), resolved: z.array(z.string()), at: diskTime }),
  pushed: z.object({ at: diskTime, status: z.enum(['firing', 'resolved']) }),
  unconfirmed: z.object({ alerts: z.array(z.string()), at: diskTime }),
};
const fileSchema = z.object({
  version: z.literal(ALERT_STATE_VERSION),
  savedAt: diskTime,
  instances: z.array(instanceSchema).max(MAX_SAVED_INSTANCES),
  dispatcher: z.object({
    log: z.record(z.string(), dispatcherEntrySchemas.log),
    pushed: z.record(z.string(), dispatcherEntrySchemas.pushed),
    unconfirmed: z.record(z.string(), dispatcherEntrySchemas.unconfirmed).optional(),
  }),
});

/**
 * The file's text. What a cut must keep comes first: a file cut short keeps a prefix, and each
 * part proves something only with what comes before it. The unconfirmed notifications (small)
 * say which log entries are not known delivered; the notification log, newest first, says what
 * was sent to whom and when (what keeps a page from being sent twice); then the pushes; the
 * bulky instances last.
 */
export function serializeAlertState(state: AlertState, now: number): string {
  const rank = (i: AlertInstance) => (i.state === 'resolved' ? 1 : 0);
  const instances = [...state.instances]
    .sort((a, b) => rank(a) - rank(b) || b.activeAt - a.activeAt)
    .slice(0, MAX_SAVED_INSTANCES);
  const newest = <T extends { at: number }>(rec: Record<string, T>) =>
    Object.fromEntries(
      Object.entries(rec)
        .sort(([, a], [, b]) => b.at - a.at)
        .slice(0, MAX_SAVED_LOG_ENTRIES),
    );
  return JSON.stringify({
    version: ALERT_STATE_VERSION,
    savedAt: now,
    dispatcher: {
      unconfirmed: newest(state.dispatcher.unconfirmed ?? {}),
      log: newest(state.dispatcher.log),
      pushed: newest(state.dispatcher.pushed),
    },
    instances,
  });
}

export function parseAlertState(text: string): AlertState {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`not JSON (${(err as Error).message})`);
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    throw new Error(`${i.path.join('.') || '(root)'}: ${i.message}`);
  }
  return { instances: parsed.data.instances, dispatcher: parsed.data.dispatcher, savedAt: parsed.data.savedAt };
}

/**
 * `damaged`: the file is there but not a state file (why), with its text and mtime to salvage
 * from; `problem`: it could not be read.
 */
export type LoadResult = {
  state?: AlertState;
  problem?: string;
  damaged?: { why: string; text: string; mtimeMs?: number };
};

/**
 * Reads the state; a missing file is empty state, an unreadable or damaged one is reported. Bytes
 * that are not UTF-8, or a file over MAX_ALERT_STATE_BYTES, make it damaged (files/readBack.ts).
 */
export async function loadAlertState(stateDir: string): Promise<LoadResult> {
  const path = join(stateDir, ALERT_STATE_FILE);
  let read;
  try {
    read = await readBack(path, MAX_ALERT_STATE_BYTES);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { problem: `${path}: cannot read (${code ?? (err as Error).message}); starting with empty alert state` };
  }
  if (!read) return {};
  const { text, mtimeMs } = read;
  if (read.damage) return { damaged: { why: read.damage, text, mtimeMs } };
  try {
    return { state: parseAlertState(text) };
  } catch (err) {
    return { damaged: { why: (err as Error).message, text, mtimeMs } };
  }
}

export async function saveAlertState(stateDir: string, state: AlertState, now: number): Promise<void> {
  await writeFileAtomically(join(stateDir, ALERT_STATE_FILE), [serializeAlertState(state, now)]);
}
