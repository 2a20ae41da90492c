// The on-disk layout: `evidence-<UTC timestamp>-<seq>.jsonl` files whose names sort in
// write order, one JSON record per line. Reading is shared by the store, the HTTP API and the CLI.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseRecordLine, type EvidenceRecord } from './record.js';

const FILE_RE = /^evidence-\d{8}T\d{9}Z-\d{6}\.jsonl$/;

export function isEvidenceFile(name: string): boolean {
  return FILE_RE.test(name);
}

/** A name that sorts after every name made earlier by this clock (seq breaks ties within a millisecond). */
export function evidenceFileName(now: Date, seq: number): string {
  const iso = now.toISOString(); // 2024-05-01T12:34:56.789Z
  const stamp = iso.slice(0, 19).replace(/[-:]/g, '') + iso.slice(20, 23) + 'Z';
  return `evidence-${stamp}-${String(seq % 1_000_000).padStart(6, '0')}.jsonl`;
}

export interface EvidenceFileInfo {
  name: string;
  size: number;
  mtimeMs: number;
}

/** Evidence files in `dir`, oldest first. Other files in the directory are not ours and are ignored. */
export async function listEvidenceFiles(dir: string): Promise<EvidenceFileInfo[]> {
  const names = (await readdir(dir)).filter(isEvidenceFile).sort();
  const out: EvidenceFileInfo[] = [];
  for (const name of names) {
    try {
      const s = await stat(join(dir, name));
      if (s.isFile()) out.push({ name, size: s.size, mtimeMs: s.mtimeMs });
    } catch {
      // Deleted between readdir and stat (retention in another process): nothing to list.
    }
  }
  return out;
}

export interface EvidenceQuery {
  node?: string;
  since?: Date;
  /** Newest records returned at most; Infinity for all. */
  limit: number;
}

export interface ReadResult {
  records: EvidenceRecord[];
  /** Lines that were not complete records (torn last line, foreign text). */
  skippedLines: number;
}

/** Splits file content into complete lines; the text after the last newline is a torn write. */
export function splitLines(content: string): { lines: string[]; torn: boolean } {
  const parts = content.split('\n');
  const tail = parts.pop() ?? '';
  return { lines: parts, torn: tail.length > 0 };
}

/** The newest matching records first, across rotated files; unreadable lines are skipped, never fatal. */
export async function readEvidence(dir: string, q: EvidenceQuery): Promise<ReadResult> {
  const files = (await listEvidenceFiles(dir)).reverse();
  const sinceMs = q.since?.getTime();
  const records: EvidenceRecord[] = [];
  let skippedLines = 0;
  for (const file of files) {
    if (records.length >= q.limit) break;
    // A file last written before `since` holds only older records.
    if (sinceMs !== undefined && file.mtimeMs < sinceMs) continue;
    let content: string;
    try {
      content = await readFile(join(dir, file.name), 'utf8');
    } catch {
      continue; // removed by retention while we read
    }
    const { lines, torn } = splitLines(content);
    if (torn) skippedLines++;
    for (let i = lines.length - 1; i >= 0 && records.length < q.limit; i--) {
      const record = parseRecordLine(lines[i] ?? '');
      if (!record) {
        if ((lines[i] ?? '').length > 0) skippedLines++;
        continue;
      }
      if (q.node !== undefined && record.node !== q.node) continue;
      if (sinceMs !== undefined && Date.parse(record.time) < sinceMs) continue;
      records.push(record);
    }
  }
  return { records, skippedLines };
}
