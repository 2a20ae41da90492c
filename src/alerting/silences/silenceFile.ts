// The silences on disk (`silences.json` in alerting.stateDir), with the alert state's guarantees:
// written atomically (files/atomicFile.ts), a failed write retried with backoff until one
// succeeds, a damaged file set aside (never written over) and every silence still whole in it
// loaded. Times are wall-clock ms, as the silences hold them.
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomically } from '../../files/atomicFile.js';
import { diskTime } from '../../files/diskTime.js';
import { readBack } from '../../files/readBack.js';
import { salvageJson } from '../../files/jsonSalvage.js';
import { setAside } from '../../files/setAside.js';
import type { Silence } from './types.js';

export const SILENCE_FILE = 'silences.json';
export const SILENCE_FILE_VERSION = 1;
/** Far above what the store keeps; a larger file is read as cut there (files/readBack.ts). */
const MAX_SILENCE_FILE_BYTES = 64 * 1024 * 1024;

const matcherSchema = z.object({ name: z.string(), value: z.string(), isRegex: z.boolean(), isEqual: z.boolean() });
export const silenceSchema = z.object({
  id: z.string().min(1).max(200),
  matchers: z.array(matcherSchema).min(1),
  startsAt: diskTime,
  endsAt: diskTime,
  createdBy: z.string(),
  comment: z.string(),
  updatedAt: diskTime,
  ackOf: z.string().optional(),
});
const fileSchema = z.object({
  version: z.literal(SILENCE_FILE_VERSION),
  savedAt: diskTime,
  silences: z.array(silenceSchema),
});

export function serializeSilences(silences: readonly Silence[], now: number): string {
  return JSON.stringify({ version: SILENCE_FILE_VERSION, savedAt: now, silences });
}

export interface SilenceLoad {
  silences: Silence[];
  /** What a person must know: the file was damaged (set aside, what was kept) or unreadable. */
  problem?: string;
}

/** The file's silences; a damaged one is set aside at `now` and the silences still whole in it kept. */
export async function loadSilences(stateDir: string, now: number): Promise<SilenceLoad> {
  const path = join(stateDir, SILENCE_FILE);
  let text: string;
  let why: string | undefined;
  try {
    const read = await readBack(path, MAX_SILENCE_FILE_BYTES);
    if (!read) return { silences: [] };
    text = read.text;
    why = read.damage;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { silences: [], problem: `${path}: cannot read (${code ?? (err as Error).message}); no silences loaded` };
  }
  // Bytes that are not UTF-8 (or a file cut at the bound) make the file damaged, never read as whole.
  if (why === undefined) {
    const whole = parseWhole(text);
    if (Array.isArray(whole)) return { silences: whole };
    why = whole;
  }
  const salvaged = salvageSilences(text);
  const kept = `${salvaged.silences.length} silences recovered, ${salvaged.lost} lost`;
  try {
    const aside = await setAside(path, now);
    return { silences: salvaged.silences, problem: `silence file damaged (${why}): kept as ${aside}; ${kept}` };
  } catch (err) {
    const problem = `silence file damaged (${why}) and could not be set aside (${(err as Error).message}); ${kept}`;
    return { silences: salvaged.silences, problem };
  }
}

/** The silences of a whole file, or why the text is not one. */
function parseWhole(text: string): Silence[] | string {
  try {
    const parsed = fileSchema.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data.silences;
    const issue = parsed.error.issues[0]!;
    return `${issue.path.join('.') || '(root)'}: ${issue.message}`;
  } catch (err) {
    return `not JSON (${(err as Error).message})`;
  }
}

/** Every silence whole in a damaged file (one cut short keeps a prefix); the broken ones counted. */
export function salvageSilences(text: string): { silences: Silence[]; lost: number } {
  const json = salvageJson(text, (p) => (p.length === 2 && p[0] === 'silences' ? 'value' : undefined));
  const silences: Silence[] = [];
  let lost = json.broken.length;
  for (const { value } of json.values) {
    const s = silenceSchema.safeParse(value);
    if (s.success) silences.push(s.data);
    else lost++;
  }
  return { silences, lost };
}

export async function saveSilences(stateDir: string, silences: readonly Silence[], now: number): Promise<void> {
  await writeFileAtomically(join(stateDir, SILENCE_FILE), [serializeSilences(silences, now)]);
}
