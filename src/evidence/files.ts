// The on-disk layout: `evidence-<UTC timestamp>-<seq>.jsonl` files whose names sort in
// write order, one JSON record per line. Reading is shared by the store, the HTTP API and the CLI.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseRecordLine, type EvidenceRecord } from './record.js';
import { linesBackwards, type ScanBudget } from './reverseLines.js';

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
  /** The scan stopped at its byte bound before `limit` records or the oldest file were reached. */
  partial: boolean;
}

/** Splits file content into complete lines; the text after the last newline is a torn write. */
export function splitLines(content: string): { lines: string[]; torn: boolean } {
  const parts = content.split('\n');
  const tail = parts.pop() ?? '';
  return { lines: parts, torn: tail.length > 0 };
}

export interface ReadOptions {
  /** Bytes read at most over all files (default unbounded, for the CLI). */
  maxScanBytes?: number;
}

/**
 * The newest matching records first, across rotated files, read from the end of the newest file
 * backwards and stopping at `limit`; unreadable lines are skipped, never fatal.
 */
export async function readEvidence(dir: string, q: EvidenceQuery, opts: ReadOptions = {}): Promise<ReadResult> {
  const files = (await listEvidenceFiles(dir)).reverse();
  const sinceMs = q.since?.getTime();
  const budget: ScanBudget = { bytes: opts.maxScanBytes ?? Number.POSITIVE_INFINITY };
  const records: EvidenceRecord[] = [];
  let skippedLines = 0;
  for (const file of files) {
    // A file last written before `since` holds only older records, and so do the files before it.
    if (records.length >= q.limit || budget.bytes <= 0 || (sinceMs !== undefined && file.mtimeMs < sinceMs)) break;
    try {
      for await (const line of linesBackwards(join(dir, file.name), budget)) {
        if (records.length >= q.limit) break;
        const record = line.text === undefined ? undefined : parseRecordLine(line.text);
        if (!record) {
          if (line.text !== '') skippedLines++;
          continue;
        }
        if (sinceMs !== undefined && Date.parse(record.time) < sinceMs) continue;
        if (q.node === undefined || record.node === q.node) records.push(record);
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err; // removed by retention while we read
    }
  }
  return { records, skippedLines, partial: budget.bytes <= 0 && records.length < q.limit };
}
