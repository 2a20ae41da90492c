// Is evidence.dir usable? Asked by check-config (which must not create anything lasting) and at
// start-up, so a bad directory is reported clearly before the daemon runs rather than at the first 5xx.
import { constants } from 'node:fs';
import { access, mkdir, open, stat, unlink } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { EvidenceSettings } from '../domain.js';

/** Checks the settings and the directory, and creates it; throws an Error with a clear message. */
export async function prepareEvidenceDir(settings: EvidenceSettings): Promise<void> {
  if (!(settings.maxBytes > 0) || !(settings.maxAgeDays > 0)) {
    throw new Error(
      `evidence: maxBytes and maxAgeDays must be positive (got ${settings.maxBytes}, ${settings.maxAgeDays})`,
    );
  }
  const problem = await checkEvidenceDir(settings.dir);
  if (problem) throw new Error(problem);
  try {
    await mkdir(resolve(settings.dir), { recursive: true });
  } catch (err) {
    throw new Error(
      `evidence.dir ${resolve(settings.dir)} cannot be created (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
    );
  }
}

/** null when `dir` is a writable directory or can be created; otherwise a message naming the problem. */
export async function checkEvidenceDir(dir: string): Promise<string | null> {
  if (dir.trim() === '') return 'evidence.dir is empty';
  const abs = resolve(dir);
  const info = await statOrNull(abs);
  if (info && !info.isDirectory()) return `evidence.dir ${abs} exists but is not a directory`;
  if (info) return probeWrite(abs);

  // Missing: it can be created if its nearest existing ancestor is a writable directory.
  let ancestor = dirname(abs);
  for (let i = 0; i < 256; i++) {
    const a = await statOrNull(ancestor);
    if (a) {
      if (!a.isDirectory()) return `evidence.dir ${abs} cannot be created: ${ancestor} is not a directory`;
      try {
        await access(ancestor, constants.W_OK | constants.X_OK);
        return null;
      } catch (err) {
        return `evidence.dir ${abs} cannot be created: ${ancestor} is not writable (${errCode(err)})`;
      }
    }
    const up = dirname(ancestor);
    if (up === ancestor) break;
    ancestor = up;
  }
  return `evidence.dir ${abs} cannot be created: no existing parent directory`;
}

/** Creates and removes a probe file: the only test that also catches read-only mounts and root-owned quirks. */
async function probeWrite(dir: string): Promise<string | null> {
  const probe = join(dir, `.evidence-write-check-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    const handle = await open(probe, 'wx');
    await handle.close();
    await unlink(probe);
    return null;
  } catch (err) {
    return `evidence.dir ${dir} is not writable (${errCode(err)})`;
  }
}

async function statOrNull(path: string) {
  try {
    return await stat(path);
  } catch {
    return null;
  }
}

function errCode(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e?.code ?? (e instanceof Error ? e.message : String(err));
}
