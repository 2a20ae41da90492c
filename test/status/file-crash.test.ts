// kill -9 in the middle of replacing the status history file (written in pieces): the old file
// stays whole and loads, the partial temp file is never read, and the next save replaces it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { NodeHistory } from '../../src/status/history.js';
import { loadStatusFile, writeStatusFile } from '../../src/status/persist.js';
import { buildForChild, type ChildBuild } from '../support/crashChild.js';

let build: ChildBuild;

beforeAll(async () => {
  build = await buildForChild('status-crash-', ['status/persist.ts']);
}, 60_000);

afterAll(async () => {
  await build.close();
});

/** Runs the child until it stops mid-write, then SIGKILLs it. */
async function killMidWrite(file: string): Promise<string[]> {
  const said: string[] = [];
  const args = [build.js('status/persist'), build.js('status/history'), file];
  const { signal } = await build.runUntilKilled('status-file-crash-child.mjs', args, (line) => {
    if (line) said.push(line);
    return line === 'mid';
  });
  if (signal !== 'SIGKILL') throw new Error(`child ended by ${signal}, not SIGKILL`);
  return said;
}

describe('status history file, crash while writing', () => {
  it('keeps the previous file whole when the writer dies mid-write, and the next save replaces it', async () => {
    const dir = join(build.work, 'state');
    const file = join(dir, 'status-history.json');
    expect(await killMidWrite(file)).toEqual(['saved', 'mid']);

    // The partial new content exists (the kill came mid-write) but only in the temp file.
    const names = await readdir(dir);
    const temp = names.find((n) => n.endsWith('.tmp'));
    expect(temp).toBeDefined();
    expect((await stat(join(dir, temp!))).size).toBeGreaterThanOrEqual(256 * 1024);
    const old = (await loadStatusFile(file))!;
    expect(old.nodes.map((n) => n.name)).toEqual(['old-1', 'old-2']);
    expect(old.nodes[0]!.history.entries()).toEqual([
      { at: 1e12, outcome: 'up', durationMs: 12, reason: { code: 'none', n: 0 } },
    ]);

    // A restarted exporter saves over it as usual.
    const h = new NodeHistory();
    h.add({ at: 3e12, outcome: 'down', durationMs: 2000, reason: { code: 'timeout', n: 2 } });
    await writeStatusFile(
      file,
      { nodes: [{ name: 'after', history: h, status: 'down', since: 3e12 }], events: [] },
      3e12,
    );
    const back = (await loadStatusFile(file))!;
    expect(back.nodes.map((n) => [n.name, n.status, n.since])).toEqual([['after', 'down', 3e12]]);
    expect(back.nodes[0]!.history.entries()).toEqual(h.entries());
  }, 60_000);
});
