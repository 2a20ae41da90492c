// The status history file: one JSON document beside the other local state, replaced atomically
// (atomicFile.ts), so a crash leaves the old or the new file. Its times are wall-clock times, the
// only ones a later process can read; the board's are monotonic, turned at writing and loading
// (FileTimes).
import { z } from 'zod';
import { writeFileAtomically } from '../files/atomicFile.js';
import { diskTime, isDateMs, MAX_DATE_MS } from '../files/diskTime.js';
import { readBack } from '../files/readBack.js';
import { HISTORY_BYTES, HISTORY_LENGTH, NodeHistory } from './history.js';
import { STATUS_KINDS, type StatusEvent } from './types.js';

export const STATUS_FILE_VERSION = 1;
/** Read back at most this much (~4 KB a node; a longer string than this Node.js cannot make anyway). */
export const MAX_STATUS_FILE_BYTES = 512 * 1024 * 1024;

export interface SavedNode {
  name: string;
  history: NodeHistory;
  status?: (typeof STATUS_KINDS)[number];
  since?: number;
}

export interface StatusFileData {
  nodes: SavedNode[];
  events: StatusEvent[];
}

/**
 * How times are turned between the board and the file: `map` each time, `shiftMs` how far, for
 * the uptime buckets (moved by whole buckets). Writing: toWall, the wall clock's lead; loading:
 * fromWall, minus the lead.
 */
export interface FileTimes {
  map: (t: number) => number;
  shiftMs: number;
}

function mapNode(n: SavedNode, times: FileTimes | undefined): SavedNode {
  if (!times) return n;
  return {
    ...n,
    history: n.history.mapTimes(times.map, times.shiftMs),
    since: n.since === undefined ? undefined : times.map(n.since),
  };
}

function mapEvents(events: StatusEvent[], times: FileTimes | undefined): StatusEvent[] {
  if (!times) return events;
  return events.map((e) => ({
    ...e,
    at: times.map(e.at),
    ...(e.firstAt !== undefined && { firstAt: times.map(e.firstAt) }),
  }));
}

/** The file's data with every time turned (loading: the file's wall times to monotonic ones). */
export function mapStatusFileTimes(data: StatusFileData, times: FileTimes): StatusFileData {
  return { nodes: data.nodes.map((n) => mapNode(n, times)), events: mapEvents(data.events, times) };
}

const bucketId = z
  .number()
  .int()
  .min(-1)
  .max(MAX_DATE_MS / 600_000);
const nodeSchema = z.object({
  name: z.string().min(1).max(200),
  head: z
    .number()
    .int()
    .min(0)
    .max(HISTORY_LENGTH - 1),
  count: z.number().int().min(0).max(HISTORY_LENGTH),
  // Bucket ids (time / bucket size), -1 before the first poll.
  fineId: bucketId,
  coarseId: bucketId,
  firstAt: diskTime.optional(),
  data: z.string(),
  status: z.enum(STATUS_KINDS).optional(),
  since: diskTime.optional(),
});
const eventSchema = z.object({
  at: diskTime,
  kind: z.enum([
    'node_down',
    'node_up',
    'node_degraded',
    'config_accepted',
    'config_rejected',
    'alert_firing',
    'alert_resolved',
  ]),
  node: z.string().max(200).optional(),
  text: z.string().max(1000),
  changes: z.number().int().min(2).optional(),
  firstAt: diskTime.optional(),
  spells: z.number().int().min(1).optional(),
});
const fileSchema = z.object({
  version: z.literal(STATUS_FILE_VERSION),
  savedAt: diskTime,
  nodes: z.array(nodeSchema),
  events: z.array(eventSchema),
});

/**
 * The file's JSON text in pieces (its head, one per node, its tail), exactly as JSON.stringify of
 * the whole document would write it: at 10,000 nodes the whole text is ~40 MB, each piece ~3 KB.
 */
export function* statusFilePieces(data: StatusFileData, now: number, times?: FileTimes): Generator<string> {
  yield `{"version":${STATUS_FILE_VERSION},"savedAt":${JSON.stringify(now)},"nodes":[`;
  let first = true;
  // Each node's bytes in the file's layout, written into one buffer in turn (times turned as written).
  const bytes = Buffer.alloc(HISTORY_BYTES);
  for (const n of data.nodes) {
    bytes.fill(0);
    const ring = n.history.writeFile(bytes, times);
    const saved = {
      name: n.name,
      head: ring.head,
      count: ring.count,
      fineId: ring.fineId,
      coarseId: ring.coarseId,
      firstAt: ring.firstAt,
      data: bytes.toString('base64'),
      status: n.status,
      since: n.since === undefined || !times ? n.since : times.map(n.since),
    };
    yield first ? JSON.stringify(saved) : `,${JSON.stringify(saved)}`;
    first = false;
  }
  yield `],"events":${JSON.stringify(mapEvents(data.events, times))}}`;
}

/** Parses a status file; throws an Error saying what is wrong. */
export function parseStatus(text: string): StatusFileData {
  const parsed = fileSchema.safeParse(JSON.parse(text));
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    throw new Error(`${i.path.join('.') || '(root)'}: ${i.message}`);
  }
  const nodes = parsed.data.nodes.map((n) => {
    const bytes = Buffer.from(n.data, 'base64');
    if (bytes.length !== HISTORY_BYTES)
      throw new Error(`nodes.${n.name}: history has ${bytes.length} bytes, expected ${HISTORY_BYTES}`);
    const h = NodeHistory.fromFile(bytes, n);
    const bad = h.entries().find((e) => !isDateMs(e.at));
    if (bad) throw new Error(`nodes.${n.name}: a poll at ${bad.at} is not a time (outside the range of a Date)`);
    h.firstAt = n.firstAt ?? h.guessFirstAt();
    return { name: n.name, history: h, status: n.status, since: n.since };
  });
  return { nodes, events: parsed.data.events };
}

/**
 * Reads the file; undefined when it does not exist. Throws with the path on any other problem:
 * bytes that are not UTF-8 and times no Date holds among them (files/readBack.ts, diskTime.ts).
 */
export async function loadStatusFile(path: string): Promise<StatusFileData | undefined> {
  let read;
  try {
    read = await readBack(path, MAX_STATUS_FILE_BYTES);
  } catch (err) {
    throw new Error(`${path}: cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (!read) return undefined;
  if (read.damage) throw new Error(`${path}: ${read.damage}`);
  try {
    return parseStatus(read.text);
  } catch (err) {
    throw new Error(`${path}: ${(err as Error).message}`);
  }
}

/**
 * Writes the history file node by node, `now` the wall time of the save, `times` turning the
 * board's times into the file's. A node's history may take polls in while the file is written;
 * each node's piece is read at once, so every node is saved whole.
 */
export function writeStatusFile(path: string, data: StatusFileData, now: number, times?: FileTimes): Promise<void> {
  return writeFileAtomically(path, statusFilePieces(data, now, times));
}
