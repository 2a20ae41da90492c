// GET /api/evidence as a function of the query string, so the server only copies status, headers
// and JSON. Each query reads the newest file backwards and stops at `limit` or at a byte bound;
// only a few run at once (429 beyond), so no client can make the exporter read the whole
// directory into memory, however large it is or however many ask. Node pages query within the
// same limits (read), since anyone who can load a page can ask for one.
import type { EvidenceQuery, ReadOptions, ReadResult } from './files.js';
import type { EvidenceRecord } from './record.js';
import { parseEvidenceQuery } from './query.js';

export interface EvidenceApiResponse {
  status: number;
  /** `partial`: the scan stopped at its byte bound; older matching records may exist. */
  body: { records: EvidenceRecord[]; partial?: true } | { error: string };
  headers?: Record<string, string>;
}

export interface EvidenceReader {
  read(q: EvidenceQuery, opts: ReadOptions): Promise<ReadResult>;
}

export interface EvidenceApiLimits {
  /** Queries served at once; more get 429. Default 2. */
  maxConcurrent?: number;
  /** Bytes of evidence files one query reads at most. Default 32 MiB. */
  maxScanBytes?: number;
}

export const DEFAULT_EVIDENCE_API_LIMITS: Required<EvidenceApiLimits> = {
  maxConcurrent: 2,
  maxScanBytes: 32 * 1024 * 1024,
};

/** Evidence queries within the API's limits: its byte bound, and a place among its few at once. */
export interface LimitedEvidenceReader {
  /** The newest matching records; 'busy' when the most queries allowed at once are running. */
  read(q: EvidenceQuery): Promise<ReadResult | 'busy'>;
}

export interface EvidenceApi extends LimitedEvidenceReader {
  /** GET /api/evidence from its query string. */
  handle(params: URLSearchParams): Promise<EvidenceApiResponse>;
}

/** The /api/evidence handler and reader, sharing one concurrency bound and byte bound. */
export function createEvidenceApi(store: EvidenceReader | null, limits: EvidenceApiLimits = {}): EvidenceApi {
  const { maxConcurrent, maxScanBytes } = { ...DEFAULT_EVIDENCE_API_LIMITS, ...limits };
  let running = 0;
  async function limited<T>(busy: T, query: () => Promise<T>): Promise<T> {
    if (running >= maxConcurrent) return busy;
    running++;
    try {
      return await query();
    } finally {
      running--;
    }
  }
  const tooMany: EvidenceApiResponse = {
    status: 429,
    body: { error: `too many evidence queries at once (at most ${maxConcurrent}); retry shortly` },
    headers: { 'retry-after': '1' },
  };
  return {
    handle: (params) => limited(tooMany, () => evidenceApiResponse(store, params, { maxScanBytes })),
    async read(q) {
      if (!store) throw new Error('evidence store is not available');
      return limited<ReadResult | 'busy'>('busy', () => store.read(q, { maxScanBytes }));
    },
  };
}

/** 400 on bad parameters, 503 without a store (evidence disabled or unusable), else the newest records. */
export async function evidenceApiResponse(
  store: EvidenceReader | null,
  params: URLSearchParams,
  opts: ReadOptions = {},
): Promise<EvidenceApiResponse> {
  const parsed = parseEvidenceQuery(params);
  if (!parsed.ok) return { status: 400, body: { error: parsed.error } };
  if (!store) return { status: 503, body: { error: 'evidence store is not available' } };
  try {
    const { records, partial } = await store.read(parsed.query, {
      maxScanBytes: opts.maxScanBytes ?? DEFAULT_EVIDENCE_API_LIMITS.maxScanBytes,
    });
    return { status: 200, body: partial ? { records, partial } : { records } };
  } catch (err) {
    // A missing directory (deleted at run time) reads as no evidence, not as a server fault.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { status: 200, body: { records: [] } };
    return { status: 500, body: { error: 'evidence could not be read' } };
  }
}
