// Which evidence files go, and when: files past maxAgeDays, then the oldest while the files would
// cost more than maxBytes. The files themselves (and the active one) belong to the writer.
import { listEvidenceFiles } from './files.js';

/** What retention needs of the writer's files. */
export interface RetainedFiles {
  readonly dir: string;
  /** Names of the files held; evidence file names sort oldest first. */
  names(): Iterable<string>;
  activeName(): string | undefined;
  /** What the files cost against maxBytes. */
  cost(): number;
  deleteFile(name: string): Promise<void>;
  closeActive(): Promise<void>;
  /** Closes the active file, then applies retention. */
  rotate(): Promise<void>;
}

export interface RetentionLimits {
  maxBytes: number;
  maxAgeMs: number;
  now: () => Date;
}

/** Deletes the oldest files until `incoming` more bytes fit within maxBytes. */
export async function makeRoom(files: RetainedFiles, incoming: number, maxBytes: number): Promise<void> {
  // Bounded: each round deletes a file or retires the active one (at most once).
  const rounds = [...files.names()].length + 1;
  for (let i = 0; i < rounds && files.cost() + incoming > maxBytes; i++) {
    const active = files.activeName();
    const victim = [...files.names()].sort().find((n) => n !== active);
    if (victim) await files.deleteFile(victim);
    else if (active !== undefined) await files.rotate();
    else break;
  }
}

/** Deletes files past maxAgeDays, then the oldest files while the total exceeds maxBytes. */
export async function enforceRetention(files: RetainedFiles, limits: RetentionLimits): Promise<void> {
  const cutoff = limits.now().getTime() - limits.maxAgeMs;
  for (const info of await listEvidenceFiles(files.dir)) {
    if (info.mtimeMs >= cutoff) continue;
    if (info.name === files.activeName()) await files.closeActive();
    await files.deleteFile(info.name);
  }
  await makeRoom(files, 0, limits.maxBytes);
}
