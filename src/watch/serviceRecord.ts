// What the services watch has seen, on disk (`watch-services.json` in alerting.stateDir), with the
// alert state's guarantees: written whole and atomically (files/atomicFile.ts), read back strictly,
// a damaged file set aside (never written over) and the record started afresh. Per watched
// provider entry (its name, network, provider and type filter: an edited entry is another), the
// service types it was seen registered with: one that leaves the registry is known as gone after a
// restart too. Read synchronously at start (a small file), so the first alert evaluation knows it.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomically } from '../files/atomicFile.js';
import { setAside } from '../files/setAside.js';
import { decodeUtf8 } from '../files/utf8.js';
import type { WatchEntry } from './types.js';

export const SERVICE_RECORD_FILE = 'watch-services.json';
const MAX_BYTES = 16 * 1024 * 1024;

/** The record's key of an entry. */
export const recordKey = (e: WatchEntry): string =>
  JSON.stringify([e.name, e.network, e.address, e.serviceType ?? null]);

export type SeenRecord = Map<string, string[]>;

export interface RecordLoad {
  record: SeenRecord;
  /** Why the file could not be used (it was set aside), for one log line. */
  problem?: string;
  /** The file exists but could not be read: never written over. */
  keepOff?: boolean;
}

function valid(json: unknown): SeenRecord | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const o = json as { version?: unknown; entries?: unknown };
  if (o.version !== 1 || typeof o.entries !== 'object' || o.entries === null || Array.isArray(o.entries))
    return undefined;
  const out: SeenRecord = new Map();
  for (const [k, v] of Object.entries(o.entries)) {
    if (!Array.isArray(v) || !v.every((t) => typeof t === 'string')) return undefined;
    out.set(k, v);
  }
  return out;
}

export function loadRecord(dir: string | undefined, wallNow: number): RecordLoad {
  if (!dir) return { record: new Map() };
  const path = join(dir, SERVICE_RECORD_FILE);
  let text: string;
  try {
    if (statSync(path).size > MAX_BYTES) throw Object.assign(new Error('too large'), { code: 'EFBIG' });
    // Strictly, as every file the exporter reads back: a bad byte makes the file damaged.
    const decoded = decodeUtf8(readFileSync(path));
    text = decoded.invalidAt === undefined ? decoded.text : '';
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ENOENT') return { record: new Map() };
    if (code !== 'EFBIG')
      return {
        record: new Map(),
        keepOff: true,
        problem: `cannot read ${path} (${code ?? 'error'}): kept in memory only`,
      };
    text = '';
  }
  let record: SeenRecord | undefined;
  try {
    record = valid(JSON.parse(text));
  } catch {
    record = undefined;
  }
  if (record) return { record };
  void setAside(path, wallNow).catch(() => undefined);
  return { record: new Map(), problem: `${path} is damaged: set aside, the services seen start afresh` };
}

export async function saveRecord(dir: string, record: SeenRecord, wallNow: number): Promise<void> {
  const entries = Object.fromEntries([...record].sort(([a], [b]) => (a < b ? -1 : 1)));
  await writeFileAtomically(join(dir, SERVICE_RECORD_FILE), [
    JSON.stringify({ version: 1, savedAt: wallNow, entries }, null, 1),
  ]);
}
