// Where the demo keeps its evidence, status history and alert state: a new directory per run,
// removed when the demo stops, so a second run never shows the first run's events; or a
// directory the user names (--state-dir), kept across runs. Either way the demo says which.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export interface DemoState {
  dir: string;
  /** For the start-up banner: where, and whether it outlives the run. */
  note: string;
  /** Removes a per-run directory; keeps a named one. */
  release(): Promise<void>;
}

export async function demoStateDir(named?: string): Promise<DemoState> {
  if (named) {
    const dir = resolve(named);
    await mkdir(dir, { recursive: true });
    return {
      dir,
      note: `${dir} (kept across runs: earlier runs' events and history show)`,
      release: async () => undefined,
    };
  }
  const dir = await mkdtemp(join(tmpdir(), 'ledger-fleet-exporter-demo-'));
  return {
    dir,
    note: `${dir} (new for this run, removed when the demo stops; --state-dir <dir> keeps state across runs)`,
    release: () => rm(dir, { recursive: true, force: true }),
  };
}
