// Durable alert state in alerting.stateDir: active instances (activeAt, firingSince) and what was
// last sent to each receiver, so a restart neither repeats a notification nor forgets a firing
// alert. Written atomically; bounded; a damaged file is reported (stateStore.ts sets it aside), never fatal.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomically } from '../../files/atomicFile.js';
import type { DispatcherState } from './dispatcher.js';
import type { AlertInstance } from '../rules/instance.js';

export const ALERT_STATE_VERSION = 1;
export const ALERT_STATE_FILE = 'alerts.json';
/** Bounds: beyond these, resolved and then oldest instances / oldest log entries are dropped. */
export const MAX_SAVED_INSTANCES = 5_000;
export const MAX_SAVED_LOG_ENTRIES = 20_000;

export interface AlertState {
  instances: AlertInstance[];
  dispatcher: DispatcherState;
  /** When the file was written (ms); set when read back. */
  savedAt?: number;
}

const labels = z.record(z.string(), z.string());
const instanceSchema = z.object({
  id: z.string().min(1).max(100),
  alertname: z.string().min(1).max(200),
  labels,
  annotations: labels,
  state: z.enum(['pending', 'firing', 'resolved']),
  value: z.number(),
  activeAt: z.number(),
  firingSince: z.number().optional(),
  resolvedAt: z.number().optional(),
  keepFiringSince: z.number().optional(),
});
const fileSchema = z.object({
  version: z.literal(ALERT_STATE_VERSION),
  savedAt: z.number(),
  instances: z.array(instanceSchema).max(MAX_SAVED_INSTANCES),
  dispatcher: z.object({
    log: z.record(z.string(), z.object({ firing: z.array(z.string()), resolved: z.array(z.string()), at: z.number() })),
    pushed: z.record(z.string(), z.object({ at: z.number(), status: z.enum(['firing', 'resolved']) })),
    unconfirmed: z.record(z.string(), z.object({ alerts: z.array(z.string()), at: z.number() })).optional(),
  }),
});

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
    instances,
    dispatcher: {
      log: newest(state.dispatcher.log),
      pushed: newest(state.dispatcher.pushed),
      unconfirmed: newest(state.dispatcher.unconfirmed ?? {}),
    },
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

/** `damaged`: the file is there but not a state file (why); `problem`: it could not be read. */
export type LoadResult = { state?: AlertState; problem?: string; damaged?: string };

/** Reads the state; a missing file is empty state, an unreadable or damaged one is reported. */
export async function loadAlertState(stateDir: string): Promise<LoadResult> {
  const path = join(stateDir, ALERT_STATE_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT'
      ? {}
      : { problem: `${path}: cannot read (${code ?? (err as Error).message}); starting with empty alert state` };
  }
  try {
    return { state: parseAlertState(text) };
  } catch (err) {
    return { damaged: (err as Error).message };
  }
}

export async function saveAlertState(stateDir: string, state: AlertState, now: number): Promise<void> {
  await writeFileAtomically(join(stateDir, ALERT_STATE_FILE), [serializeAlertState(state, now)]);
}
