// GET /api/evidence as a function of the query string, so the server only copies status and JSON.
import type { EvidenceQuery } from './files.js';
import type { EvidenceRecord } from './record.js';
import { parseEvidenceQuery } from './query.js';

export interface EvidenceApiResponse {
  status: number;
  body: { records: EvidenceRecord[] } | { error: string };
}

/** 400 on bad parameters, 503 without a store (evidence disabled or unusable), else the newest records. */
export async function evidenceApiResponse(
  store: { query(q: EvidenceQuery): Promise<EvidenceRecord[]> } | null,
  params: URLSearchParams,
): Promise<EvidenceApiResponse> {
  const parsed = parseEvidenceQuery(params);
  if (!parsed.ok) return { status: 400, body: { error: parsed.error } };
  if (!store) return { status: 503, body: { error: 'evidence store is not available' } };
  try {
    return { status: 200, body: { records: await store.query(parsed.query) } };
  } catch (err) {
    // A missing directory (deleted at run time) reads as no evidence, not as a server fault.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { status: 200, body: { records: [] } };
    return { status: 500, body: { error: 'evidence could not be read' } };
  }
}
