// Moves a damaged durable file aside instead of letting the next write replace it: the evidence of
// what it held stays for a person to read. Each copy is named with the time it was set aside
// (`alerts.json.damaged-2026-11-27T15-04-05.123Z`); only the newest `keep` copies are kept, so a
// file damaged at every start cannot fill the disk.
import { readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export const DAMAGED_COPIES_KEPT = 5;

/** The name a damaged file gets at `wallMs` (colons left out: not every file system takes them). */
export function damagedName(path: string, wallMs: number): string {
  return `${path}.damaged-${new Date(wallMs).toISOString().replace(/:/g, '-')}`;
}

/** Renames `path` aside and prunes older copies; resolves to the new path. Throws when the rename fails. */
export async function setAside(path: string, wallMs: number, keep = DAMAGED_COPIES_KEPT): Promise<string> {
  const target = damagedName(path, wallMs);
  await rename(path, target);
  const prefix = `${basename(path)}.damaged-`;
  const dir = dirname(path);
  const copies = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.startsWith(prefix)).sort();
  // ISO stamps sort by time; the oldest go first.
  for (const old of copies.slice(0, Math.max(0, copies.length - keep)))
    await unlink(join(dir, old)).catch(() => undefined);
  return target;
}
