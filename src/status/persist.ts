// The status history file: one JSON document beside the other local state, replaced atomically
// (temp file, fsync, rename, fsync of the directory), so a crash leaves the old or the new file.
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { HISTORY_BYTES, HISTORY_LENGTH, NodeHistory } from './history.js';
import { STATUS_KINDS, type StatusEvent } from './types.js';

export const STATUS_FILE_VERSION = 1;

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

const nodeSchema = z.object({
  name: z.string().min(1).max(200),
  head: z.number().int().min(0).max(HISTORY_LENGTH - 1),
  count: z.number().int().min(0).max(HISTORY_LENGTH),
  fineId: z.number().int(),
  coarseId: z.number().int(),
  data: z.string(),
  status: z.enum(STATUS_KINDS).optional(),
  since: z.number().optional(),
});
const eventSchema = z.object({
  at: z.number(),
  kind: z.enum(['node_down', 'node_up', 'node_degraded', 'config_accepted', 'config_rejected', 'alert_firing', 'alert_resolved']),
  node: z.string().max(200).optional(),
  text: z.string().max(1000),
  changes: z.number().int().min(2).optional(),
  firstAt: z.number().optional(),
});
const fileSchema = z.object({ version: z.literal(STATUS_FILE_VERSION), savedAt: z.number(), nodes: z.array(nodeSchema), events: z.array(eventSchema) });

export function serializeStatus(data: StatusFileData, now: number): string {
  return JSON.stringify({
    version: STATUS_FILE_VERSION,
    savedAt: now,
    nodes: data.nodes.map((n) => ({
      name: n.name,
      head: n.history.head,
      count: n.history.count,
      fineId: n.history.fineId,
      coarseId: n.history.coarseId,
      data: Buffer.from(n.history.buf).toString('base64'),
      status: n.status,
      since: n.since,
    })),
    events: data.events,
  });
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
    if (bytes.length !== HISTORY_BYTES) throw new Error(`nodes.${n.name}: history has ${bytes.length} bytes, expected ${HISTORY_BYTES}`);
    const h = new NodeHistory(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
    Object.assign(h, { head: n.head, count: n.count, fineId: n.fineId, coarseId: n.coarseId });
    return { name: n.name, history: h, status: n.status, since: n.since };
  });
  return { nodes, events: parsed.data.events };
}

/** Reads the file; undefined when it does not exist. Throws with the path on any other problem. */
export async function loadStatusFile(path: string): Promise<StatusFileData | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`${path}: cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    return parseStatus(text);
  } catch (err) {
    throw new Error(`${path}: ${(err as Error).message}`);
  }
}

export async function saveStatusFile(path: string, content: string): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${basename(path)}.${process.pid}.tmp`);
  const fh = await open(tmp, 'w', 0o600);
  try {
    await fh.writeFile(content);
    await fh.sync();
  } catch (err) {
    await fh.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  await fh.close();
  await rename(tmp, path);
  const d = await open(dir, 'r');
  try {
    await d.sync();
  } finally {
    await d.close();
  }
}
