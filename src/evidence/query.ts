// Parameters of GET /api/evidence (and the CLI): strict, so a typo is a 400 rather than a
// silently ignored filter that shows the wrong node's evidence.
import { nameReason } from '../names.js';
import type { EvidenceQuery } from './files.js';
import { parseIntParam } from '../web/queryInt.js';

export const DEFAULT_QUERY_LIMIT = 100;
export const MAX_QUERY_LIMIT = 1000;
const KNOWN_PARAMS = new Set(['node', 'since', 'limit']);

export type ParsedQuery = { ok: true; query: EvidenceQuery & { limit: number } } | { ok: false; error: string };

/** A node name as config accepts it (one rule for both, so every configured node can be queried). */
export function isValidNodeName(name: string): boolean {
  return nameReason(name) === undefined;
}

// Date with an optional time; a time must carry its zone so the meaning does not depend on the host.
const ISO_RE = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2}))?$/;
const EPOCH_SECONDS_RE = /^\d{1,11}(?:\.\d{1,6})?$/;

/** `since` as an ISO 8601 time (with zone) or epoch seconds; null when it is neither. */
export function parseSince(raw: string): Date | null {
  let ms: number;
  if (EPOCH_SECONDS_RE.test(raw)) ms = Number(raw) * 1000;
  else if (ISO_RE.test(raw)) ms = Date.parse(raw);
  else return null;
  if (!Number.isFinite(ms)) return null;
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? null : d;
}

export function parseLimit(raw: string): number | null {
  return parseIntParam(raw, 1, MAX_QUERY_LIMIT);
}

export function parseEvidenceQuery(params: URLSearchParams): ParsedQuery {
  const seen = new Set<string>();
  for (const key of params.keys()) {
    if (!KNOWN_PARAMS.has(key))
      return { ok: false, error: `unknown parameter "${clip(key)}" (allowed: node, since, limit)` };
    if (seen.has(key)) return { ok: false, error: `parameter "${key}" given more than once` };
    seen.add(key);
  }
  const query: EvidenceQuery & { limit: number } = { limit: DEFAULT_QUERY_LIMIT };

  const node = params.get('node');
  if (node !== null) {
    if (!isValidNodeName(node))
      return {
        ok: false,
        error: 'node must be a node name (1-128 letters, digits, ".", "_" or "-", starting with a letter or digit)',
      };
    query.node = node;
  }
  const since = params.get('since');
  if (since !== null) {
    const d = parseSince(since);
    if (!d)
      return {
        ok: false,
        error: 'since must be an ISO 8601 time with zone (e.g. 2024-05-01T12:00:00Z) or epoch seconds',
      };
    query.since = d;
  }
  const limit = params.get('limit');
  if (limit !== null) {
    const n = parseLimit(limit);
    if (n === null) return { ok: false, error: `limit must be an integer from 1 to ${MAX_QUERY_LIMIT}` };
    query.limit = n;
  }
  return { ok: true, query };
}

/** Echoed names are clipped: an error message must not become a reflection channel for long input. */
function clip(s: string): string {
  const printable = s.replace(/[^\x20-\x7e]/g, '?');
  return printable.length > 40 ? `${printable.slice(0, 40)}...` : printable;
}
