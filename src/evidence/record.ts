// Building one evidence record from a 5xx answer: pure, so every rule (header selection,
// body bound, UTF-8 repair, secret scrubbing) is testable without a disk.
import { z } from 'zod';
import { redactUrl, Secrets, SECRET_HEADER_NAMES } from '../redact.js';

export interface EvidenceInput {
  node: string;
  network: string;
  /** May hold credentials: removed here. */
  url: string;
  probe: string;
  /** e.g. 'GET /health' or 'POST claw_blockNumber' */
  method: string;
  status: number;
  durationMs: number;
  attempt: number;
  headers: Record<string, string | string[] | undefined>;
  /** What was read, already bounded by the caller. */
  body: Uint8Array;
  /** Set by a caller that stopped reading the body early, so the record says it is partial. */
  bodyTruncated?: boolean;
  runnerStatus: { consecutiveFailures: number; /** epoch ms */ lastSuccess: number | null };
}

export interface RunnerIdentity {
  hostname: string;
  version: string;
}

export interface EvidenceRecord {
  time: string;
  runner: RunnerIdentity;
  node: string;
  network: string;
  url: string;
  probe: string;
  method: string;
  status: number;
  durationMs: number;
  attempt: number;
  headers: Record<string, string>;
  body: string;
  bodyTruncated: boolean;
  runnerStatus: { consecutiveFailures: number; lastSuccess: string | null };
}

/** Response headers worth keeping: they identify the answering server or proxy and the retry hint. */
export const EVIDENCE_HEADERS = ['server', 'date', 'content-type', 'retry-after', 'via', 'x-request-id'] as const;

export const DEFAULT_MAX_BODY_BYTES = 4096;
// Bounds on the other free-text fields keep every line small whatever a server sends.
const MAX_HEADER_CHARS = 512;
const MAX_URL_CHARS = 2048;
const MAX_NAME_CHARS = 256;
// Bytes decoded beyond the cut so that a secret straddling the cut is still recognised and scrubbed.
const SCRUB_LOOKAHEAD_BYTES = 1024;

/**
 * Turns what the runner saw into a record that is safe to keep: only selected headers, the body
 * cut at a UTF-8 boundary with invalid bytes replaced, and no credentials or known secret values.
 */
export function buildEvidenceRecord(
  input: EvidenceInput,
  runner: RunnerIdentity,
  now: Date = new Date(),
  maxBodyBytes: number = DEFAULT_MAX_BODY_BYTES,
  /** The run's known secrets; without them only URL credentials are recognised. */
  secrets: Secrets = new Secrets(),
): EvidenceRecord {
  const text = (s: string, max: number) => cutChars(secrets.scrub(s), max);
  const bodyBytes = input.body;
  const cutBody = bodyBytes.byteLength > maxBodyBytes;
  // Scrub a little more than we keep, then cut the scrubbed text, so no partial secret survives the cut.
  const decoded = decodeUtf8(
    cutBody ? bodyBytes.subarray(0, maxBodyBytes + SCRUB_LOOKAHEAD_BYTES) : bodyBytes,
    cutBody,
  );
  const scrubbedBody = secrets.scrub(decoded);
  const body = cutUtf8(scrubbedBody, maxBodyBytes);

  return {
    time: now.toISOString(),
    runner: { hostname: text(runner.hostname, MAX_NAME_CHARS), version: text(runner.version, MAX_NAME_CHARS) },
    node: text(input.node, MAX_NAME_CHARS),
    network: text(input.network, MAX_NAME_CHARS),
    url: text(redactUrl(input.url), MAX_URL_CHARS),
    probe: text(input.probe, MAX_NAME_CHARS),
    method: text(input.method, MAX_NAME_CHARS),
    status: finiteInt(input.status),
    durationMs: Math.max(0, Number.isFinite(input.durationMs) ? Math.round(input.durationMs * 1000) / 1000 : 0),
    attempt: finiteInt(input.attempt),
    headers: selectHeaders(input.headers, (s) => text(s, MAX_HEADER_CHARS)),
    body,
    bodyTruncated: cutBody || body.length < scrubbedBody.length || input.bodyTruncated === true,
    runnerStatus: {
      consecutiveFailures: finiteInt(input.runnerStatus.consecutiveFailures),
      lastSuccess: isoOrNull(input.runnerStatus.lastSuccess),
    },
  };
}

/** Keeps the allow-listed headers (case-insensitive), joining repeated values. */
export function selectHeaders(
  headers: Record<string, string | string[] | undefined>,
  clean: (s: string) => string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [rawName, value] of Object.entries(headers)) {
    const name = rawName.toLowerCase();
    if (value === undefined || SECRET_HEADER_NAMES.has(name)) continue;
    if (!(EVIDENCE_HEADERS as readonly string[]).includes(name)) continue;
    const joined = Array.isArray(value) ? value.join(', ') : String(value);
    out[name] = out[name] === undefined ? clean(joined) : clean(`${out[name]}, ${joined}`);
  }
  return out;
}

/**
 * Decodes UTF-8, replacing invalid bytes with U+FFFD. When the bytes were cut (`cut`), an
 * incomplete character at the end is dropped instead of being shown as a replacement.
 */
export function decodeUtf8(bytes: Uint8Array, cut: boolean): string {
  // A streaming decode keeps an incomplete trailing sequence pending; we never flush it.
  return new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(bytes, { stream: cut });
}

/** The longest prefix of `s` whose UTF-8 encoding fits in `maxBytes`, never splitting a character. */
export function cutUtf8(s: string, maxBytes: number): string {
  const bytes = Buffer.from(s, 'utf8');
  if (bytes.byteLength <= maxBytes) return s;
  return decodeUtf8(bytes.subarray(0, Math.max(0, maxBytes)), true);
}

function cutChars(s: string, max: number): string {
  if (s.length <= max) return s;
  // Do not leave half a surrogate pair at the cut.
  const code = s.charCodeAt(max - 1);
  return s.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

function finiteInt(n: number): number {
  return Number.isFinite(n) ? Math.trunc(n) : 0;
}

function isoOrNull(ms: number | null): string | null {
  if (ms === null || !Number.isFinite(ms)) return null;
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** One line of an evidence file: the record as JSON plus the newline. */
export function serializeRecord(record: EvidenceRecord): Buffer {
  return Buffer.from(`${JSON.stringify(record)}\n`, 'utf8');
}

const isoTime = z.string().refine((s) => Number.isFinite(Date.parse(s)), 'not a time');

/** What readers accept: anything else on a line (torn write, foreign text) is skipped. */
export const evidenceRecordSchema = z.object({
  time: isoTime,
  runner: z.object({ hostname: z.string(), version: z.string() }),
  node: z.string(),
  network: z.string(),
  url: z.string(),
  probe: z.string(),
  method: z.string(),
  status: z.number(),
  durationMs: z.number(),
  attempt: z.number(),
  headers: z.record(z.string(), z.string()),
  body: z.string(),
  bodyTruncated: z.boolean(),
  runnerStatus: z.object({ consecutiveFailures: z.number(), lastSuccess: isoTime.nullable() }),
});

/** Parses one line; null when it is not a complete, well-formed record. */
export function parseRecordLine(line: string): EvidenceRecord | null {
  if (line.length === 0) return null;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  const parsed = evidenceRecordSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}
