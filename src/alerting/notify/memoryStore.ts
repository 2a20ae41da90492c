// The engine's durable look-back (rules/memory.ts) on disk: `alert-memory.json` in
// alerting.stateDir, with the alert state file's guarantees. Written atomically (a crash leaves the
// old file or the new one); a damaged file is set aside (never written over) and the engine starts
// without that memory, said in one error line; a missing file is an empty memory. Written when a
// value changed, at most once a minute when only "still the same" moved on, and at shutdown. A
// failed write is logged once and tried again at the next evaluation until one succeeds.
import { join } from 'node:path';
import { z } from 'zod';
import { fromWall, toWall, type Clock } from '../../clock/clock.js';
import { writeFileAtomically } from '../../files/atomicFile.js';
import { diskTime } from '../../files/diskTime.js';
import { readBack } from '../../files/readBack.js';
import { setAside } from '../../files/setAside.js';
import type { Logger } from '../../logger.js';
import type { Secrets } from '../../redact.js';
import { MAX_DURABLE_RUNS, MAX_DURABLE_SERIES, type DurableRanges } from '../rules/memory.js';

export const ALERT_MEMORY_FILE = 'alert-memory.json';
const VERSION = 1;
const MAX_BYTES = 32 * 1024 * 1024;
/** How often a memory whose values only stayed the same is written (their "last seen" times). */
export const TOUCH_SAVE_MS = 60_000;

const fileSchema = z.object({
  version: z.literal(VERSION),
  savedAt: diskTime,
  series: z
    .record(
      z.string().max(2_000),
      z.object({
        windowMs: z.number().int().positive(),
        runs: z.array(z.tuple([z.string().regex(/^[0-9]{1,40}$/), diskTime, diskTime])).max(MAX_DURABLE_RUNS),
      }),
    )
    .refine((r) => Object.keys(r).length <= MAX_DURABLE_SERIES, `more than ${MAX_DURABLE_SERIES} series`),
});

export interface MemoryStoreDeps {
  stateDir(): string;
  clock: Clock;
  logger: Logger;
  secrets: Secrets;
  memory: DurableRanges;
}

export class AlertMemoryStore {
  private lastSave = -Infinity;
  private failing = false;
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly deps: MemoryStoreDeps) {}

  private get path(): string {
    return join(this.deps.stateDir(), ALERT_MEMORY_FILE);
  }

  /** Reads the saved memory into the engine's; a damaged file is set aside and the memory starts empty. */
  async load(): Promise<void> {
    const { clock, logger, secrets } = this.deps;
    const log = { component: 'alerting', file: this.path };
    let read;
    try {
      read = await readBack(this.path, MAX_BYTES);
    } catch (err) {
      logger.error(log, secrets.scrub(`alert memory not read (${(err as Error).message}): starting without it`));
      return;
    }
    if (!read) return;
    let why = read.damage;
    if (!why) {
      try {
        const parsed = fileSchema.safeParse(JSON.parse(read.text));
        if (parsed.success) {
          this.deps.memory.import(parsed.data.series, (t) => fromWall(clock, t));
          return;
        }
        const i = parsed.error.issues[0]!;
        why = `${i.path.join('.') || '(root)'}: ${i.message}`;
      } catch (err) {
        why = `not JSON (${(err as Error).message})`;
      }
    }
    const said = `alert memory file damaged (${why}): the look-back it held is lost`;
    try {
      const aside = await setAside(this.path, clock.wall());
      logger.error({ ...log, keptAs: aside }, secrets.scrub(`${said}; kept as ${aside}`));
    } catch (err) {
      logger.error(log, secrets.scrub(`${said}, and it could not be set aside (${(err as Error).message})`));
    }
  }

  /** Writes the memory when it changed, or when only its times moved and a minute passed (`now`: monotonic). */
  saveIfDue(now: number): Promise<void> {
    const m = this.deps.memory;
    if (!m.changed && !(m.touched && now - this.lastSave >= TOUCH_SAVE_MS)) return this.chain;
    this.lastSave = now;
    return this.save();
  }

  /** Writes the memory now (shutdown), one write at a time. */
  save(): Promise<void> {
    const run = this.chain.then(() => this.writeOnce());
    this.chain = run;
    return run;
  }

  private async writeOnce(): Promise<void> {
    const { clock, memory, logger, secrets } = this.deps;
    memory.changed = false;
    memory.touched = false;
    const text = JSON.stringify({
      version: VERSION,
      savedAt: clock.wall(),
      series: memory.export((t) => toWall(clock, t)),
    });
    try {
      await writeFileAtomically(this.path, [text]);
      if (this.failing) logger.info({ component: 'alerting' }, 'alert memory written again');
      this.failing = false;
    } catch (err) {
      // Tried again at the next evaluation.
      memory.changed = true;
      if (!this.failing)
        logger.error(
          { component: 'alerting', file: this.path },
          secrets.scrub(`cannot write alert memory: ${(err as Error).message}; retrying at each evaluation`),
        );
      this.failing = true;
    }
  }
}
